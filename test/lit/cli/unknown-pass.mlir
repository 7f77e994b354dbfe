// Unknown passes and bad pass options are clear errors with status 1, not tracebacks.
// RUN: %exit 1 autodiff-opt %s --no-such-pass
// RUN: not autodiff-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not autodiff-opt %s --pass-pipeline='builtin.module(tad-verify, no-such-pass)' 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not autodiff-opt %s --pass-pipeline='builtin.module(func.func(no-such-pass))' 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not autodiff-opt %s --canonicalize=no-such-option=1 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not autodiff-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: %exit 1 autodiff-opt %s --mlir-elide-elementsattrs-if-larger=many

// FLAG-NOT: Traceback
// FLAG: autodiff-opt: error: invalid pass pipeline
// FLAG-SAME: 'no-such-pass' does not refer to a registered pass or pass pipeline
// FLAG-NOT: Traceback
// OPTION: error: invalid pass pipeline
// OPTION: no such option no-such-option
// SYNTAX: error: invalid pass pipeline
// SYNTAX-NOT: Traceback
func.func @f() {
  return
}
