// A chip without a known PTX version is refused, naming the known ones.
// RUN: not autodiff-opt %s --tad-lower-to-nvvm=chip=sm_77 2>&1 | FileCheck %s
// CHECK: unknown chip 'sm_77': choose one of sm_70, {{.*}} or give its PTX version as features=+ptxNN
// With the PTX version given, any chip is accepted:
// RUN: autodiff-opt %s '--tad-lower-to-nvvm=chip=sm_87 features=+ptx74' | FileCheck %s --check-prefix=GIVEN
// GIVEN: module
func.func @f() {
  return
}
