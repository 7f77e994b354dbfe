
/* --- the CUDA runtime of GPU code (export_cuda_runtime.c) ----------------- */

/* Appended to export_runtime.c for GPU code (tensorad/export.py), so that an
 * exported GPU library needs neither MLIR's CUDA runtime wrappers
 * (libmlir_cuda_runtime.so, which links the 136 MB libLLVM.so) nor the CUDA
 * toolkit: it loads the NVIDIA driver, libcuda.so.1, with dlopen when the
 * library is loaded, and declares the few driver types and functions it
 * uses itself (no cuda.h at build time).
 *
 * It implements the mgpu* functions that host code lowered by
 * tad-lower-to-nvvm calls, with the signatures and meaning of MLIR's
 * CudaRuntimeWrappers.cpp (the lowered code, for each launch, gets the
 * kernel's function, creates a stream, launches, synchronizes and destroys
 * the stream); device buffers
 * come from mgpuMemAlloc (managed memory when host_shared) and count with
 * the host buffers in the library's live and peak bytes, as tensorad.runtime
 * counts them for jitted GPU code. export.py refuses code that calls any
 * other mgpu* function. Device 0's primary context (the one the CUDA
 * runtime and PyTorch use) is made current for each call and the caller's
 * restored after it.
 *
 * Errors. The kernels are loaded by global constructors, when the library
 * is loaded: a missing driver, no device, or PTX the driver cannot compile
 * is recorded, not fatal, so that a program (the ctypes loader) can load the
 * library and ask tad_gpu_error() why it cannot run; the entry then refuses
 * to run. A CUDA error during a call prints the driver's message and aborts,
 * as running out of memory does.
 *
 * Compiled with -DTAD_CHECK_CUDA_H and the CUDA headers on the include path
 * (test_export.py does where they exist), it also checks its declarations
 * against the real cuda.h: types, symbol versions and constants.
 */
#include <dlfcn.h>

/* Driver types, as cuda.h declares them. CUresult and CUjit_option are enums
 * there, which C compilers represent as unsigned int (values >= 0). */
typedef unsigned int TadCUresult;
typedef unsigned int TadCUjit_option;
typedef int TadCUdevice;
typedef unsigned long long TadCUdeviceptr;
typedef struct CUctx_st *TadCUcontext;
typedef struct CUmod_st *TadCUmodule;
typedef struct CUfunc_st *TadCUfunction;
typedef struct CUstream_st *TadCUstream;

enum {
  TAD_CU_JIT_ERROR_LOG_BUFFER = 5,
  TAD_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  TAD_CU_JIT_OPTIMIZATION_LEVEL = 7,
  TAD_CU_STREAM_NON_BLOCKING = 1,
  TAD_CU_MEM_ATTACH_GLOBAL = 1,
};

/* The driver functions used: X(name in cuda.h, symbol in libcuda.so.1 (the
 * version cuda.h binds the name to), parameters). All return CUresult. */
#define TAD_CUDA_FUNCTIONS(X)                                                              \
  X(cuInit, cuInit, (unsigned int flags))                                                   \
  X(cuDeviceGet, cuDeviceGet, (TadCUdevice * device, int ordinal))                          \
  X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, (TadCUcontext * ctx, TadCUdevice dev)) \
  X(cuCtxPushCurrent, cuCtxPushCurrent_v2, (TadCUcontext ctx))                              \
  X(cuCtxPopCurrent, cuCtxPopCurrent_v2, (TadCUcontext * ctx))                              \
  X(cuGetErrorName, cuGetErrorName, (TadCUresult error, const char **name))                 \
  X(cuGetErrorString, cuGetErrorString, (TadCUresult error, const char **text))             \
  X(cuModuleLoadDataEx, cuModuleLoadDataEx,                                                 \
    (TadCUmodule * module, const void *image, unsigned int num_options,                     \
     TadCUjit_option *options, void **option_values))                                       \
  X(cuModuleUnload, cuModuleUnload, (TadCUmodule module))                                   \
  X(cuModuleGetFunction, cuModuleGetFunction,                                               \
    (TadCUfunction * function, TadCUmodule module, const char *name))                       \
  X(cuLaunchKernel, cuLaunchKernel,                                                         \
    (TadCUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,        \
     unsigned int block_x, unsigned int block_y, unsigned int block_z,                      \
     unsigned int shared_bytes, TadCUstream stream, void **params, void **extra))           \
  X(cuStreamCreate, cuStreamCreate, (TadCUstream * stream, unsigned int flags))             \
  X(cuStreamSynchronize, cuStreamSynchronize, (TadCUstream stream))                         \
  X(cuStreamDestroy, cuStreamDestroy_v2, (TadCUstream stream))                              \
  X(cuMemAlloc, cuMemAlloc_v2, (TadCUdeviceptr * ptr, size_t size))                         \
  X(cuMemAllocManaged, cuMemAllocManaged,                                                   \
    (TadCUdeviceptr * ptr, size_t size, unsigned int flags))                                \
  X(cuMemFree, cuMemFree_v2, (TadCUdeviceptr ptr))                                          \
  X(cuMemcpyAsync, cuMemcpyAsync,                                                           \
    (TadCUdeviceptr dst, TadCUdeviceptr src, size_t size, TadCUstream stream))

/* A type per function and a pointer that dlsym fills: tad_cuInit, ... */
#define TAD_DECLARE(name, symbol, params) \
  typedef TadCUresult TadFn_##name params; \
  static TadFn_##name *tad_##name;
TAD_CUDA_FUNCTIONS(TAD_DECLARE)

#ifdef TAD_CHECK_CUDA_H
#include <cuda.h>
#define TAD_CAT2(a, b) a##b
#define TAD_CAT(a, b) TAD_CAT2(a, b)
/* `name` is not an operand of ## in TAD_CAT(tad_symbol_, name), so cuda.h's
 * macro (cuMemAlloc -> cuMemAlloc_v2) expands it first: the constant only
 * exists if cuda.h binds the name to the symbol we dlsym. */
#define TAD_CHECK(name, symbol, params)                                                      \
  enum { tad_symbol_##symbol = 1 };                                                          \
  _Static_assert(TAD_CAT(tad_symbol_, name), #symbol " is not the symbol of " #name);        \
  _Static_assert(__builtin_types_compatible_p(TadFn_##name, __typeof__(symbol)),             \
                 #name ": the declared type differs from cuda.h's");
TAD_CUDA_FUNCTIONS(TAD_CHECK)
_Static_assert(__builtin_types_compatible_p(TadCUresult, CUresult), "CUresult");
_Static_assert(__builtin_types_compatible_p(TadCUjit_option, CUjit_option), "CUjit_option");
_Static_assert(__builtin_types_compatible_p(TadCUdeviceptr, CUdeviceptr), "CUdeviceptr");
/* Constants of different enums compare as int. */
_Static_assert(TAD_CU_JIT_ERROR_LOG_BUFFER == (int)CU_JIT_ERROR_LOG_BUFFER, "CU_JIT_ERROR_LOG_BUFFER");
_Static_assert(TAD_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES == (int)CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
               "CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES");
_Static_assert(TAD_CU_JIT_OPTIMIZATION_LEVEL == (int)CU_JIT_OPTIMIZATION_LEVEL, "CU_JIT_OPTIMIZATION_LEVEL");
_Static_assert(TAD_CU_STREAM_NON_BLOCKING == (int)CU_STREAM_NON_BLOCKING, "CU_STREAM_NON_BLOCKING");
_Static_assert(TAD_CU_MEM_ATTACH_GLOBAL == (int)CU_MEM_ATTACH_GLOBAL, "CU_MEM_ATTACH_GLOBAL");
#endif

#define TAD_CUDA_DRIVER "libcuda.so.1"

static TadCUcontext context; /* device 0's primary context */
static char gpu_error[2048]; /* why the GPU code cannot run here; "" when it can */
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

/* "CUDA_ERROR_NAME (the driver's description)" of a CUresult. */
static const char *error_text(TadCUresult result, char *buffer, size_t size) {
  const char *name = NULL, *text = NULL;
  tad_cuGetErrorName(result, &name);
  tad_cuGetErrorString(result, &text);
  snprintf(buffer, size, "%s (%s)", name ? name : "unknown CUDA error", text ? text : "no description");
  return buffer;
}

static void load_driver(void) {
  void *driver = dlopen(TAD_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    snprintf(gpu_error, sizeof(gpu_error),
             "the CUDA driver " TAD_CUDA_DRIVER " cannot be loaded (%s); running this GPU code "
             "needs an NVIDIA GPU and its driver", dlerror());
    return;
  }
#define TAD_LOOK_UP(name, symbol, params)                                                  \
  tad_##name = (TadFn_##name *)dlsym(driver, #symbol);                                     \
  if (!tad_##name) {                                                                       \
    snprintf(gpu_error, sizeof(gpu_error),                                                 \
             TAD_CUDA_DRIVER " has no " #symbol ": the NVIDIA driver is too old");         \
    return;                                                                                \
  }
  TAD_CUDA_FUNCTIONS(TAD_LOOK_UP)
  TadCUdevice device;
  TadCUresult result = tad_cuInit(0);
  const char *step = "cuInit";
  if (!result) result = tad_cuDeviceGet(&device, 0), step = "cuDeviceGet (device 0)";
  if (!result) result = tad_cuDevicePrimaryCtxRetain(&context, device), step = "cuDevicePrimaryCtxRetain";
  if (result) {
    char text[512];
    snprintf(gpu_error, sizeof(gpu_error), "%s failed: %s", step, error_text(result, text, sizeof(text)));
  }
}

/* The error of a GPU library that cannot run here, NULL if it can. */
static const char *tad_gpu_error(void) {
  pthread_once(&driver_once, load_driver);
  return gpu_error[0] ? gpu_error : NULL;
}

/* Called by the entry before anything else. */
static void tad_require_gpu(void) {
  const char *error = tad_gpu_error();
  if (error) {
    fprintf(stderr, "tensorad export: %s\n", error);
    abort();
  }
}

/* A failed call of the driver during a call of the entry: stop there. */
static void check(TadCUresult result, const char *what) {
  if (!result) return;
  char text[512];
  fprintf(stderr, "tensorad export: %s failed: %s\n", what, error_text(result, text, sizeof(text)));
  abort();
}

static void push_context(void) { check(tad_cuCtxPushCurrent(context), "cuCtxPushCurrent"); }

static void pop_context(void) {
  TadCUcontext popped;
  check(tad_cuCtxPopCurrent(&popped), "cuCtxPopCurrent");
}

/* Kernels (PTX) of one gpu.binary, from its global constructor; NULL when
 * the driver or the device is missing or cannot compile them (gpu_error
 * says why). */
void *mgpuModuleLoadJIT(void *data, int opt_level) {
  if (tad_gpu_error()) return NULL;
  char log[4096] = "";
  TadCUjit_option options[] = {TAD_CU_JIT_ERROR_LOG_BUFFER, TAD_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                               TAD_CU_JIT_OPTIMIZATION_LEVEL};
  /* The driver takes integer option values in the pointers' place. */
  void *values[] = {log, (void *)(uintptr_t)sizeof(log), (void *)(intptr_t)opt_level};
  TadCUmodule module = NULL;
  push_context();
  TadCUresult result = tad_cuModuleLoadDataEx(&module, data, 3, options, values);
  pop_context();
  if (result) {
    char text[512];
    snprintf(gpu_error, sizeof(gpu_error), "the CUDA driver cannot load the kernels: %s%s%s",
             error_text(result, text, sizeof(text)), log[0] ? ": " : "", log);
    return NULL;
  }
  return module;
}

/* From the global destructors, at exit or dlclose. The result is not
 * checked: at exit the driver may already be shut down. */
void mgpuModuleUnload(void *module) {
  if (module) tad_cuModuleUnload(module);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  TadCUfunction function = NULL;
  check(tad_cuModuleGetFunction(&function, module, name), "cuModuleGetFunction");
  return function;
}

/* Sizes come as index (intptr_t) values. The kernel parameters' count is
 * not needed: the driver knows each kernel's parameter layout. */
void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y, intptr_t grid_z,
                      intptr_t block_x, intptr_t block_y, intptr_t block_z, int32_t shared_bytes,
                      void *stream, void **params, void **extra, size_t param_count) {
  (void)param_count;
  push_context();
  check(tad_cuLaunchKernel(function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes,
                           stream, params, extra),
        "cuLaunchKernel");
  pop_context();
}

void *mgpuStreamCreate(void) {
  TadCUstream stream = NULL;
  push_context();
  check(tad_cuStreamCreate(&stream, TAD_CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  pop_context();
  return stream;
}

void mgpuStreamSynchronize(void *stream) {
  push_context();
  check(tad_cuStreamSynchronize(stream), "cuStreamSynchronize (a kernel or a copy)");
  pop_context();
}

void mgpuStreamDestroy(void *stream) {
  push_context();
  check(tad_cuStreamDestroy(stream), "cuStreamDestroy");
  pop_context();
}

/* Live device buffers and their sizes: the bytes they count, and which
 * results are ours to free (a result may alias an input or a constant). */
typedef struct DeviceBuffer {
  void *ptr;
  uint64_t size;
  struct DeviceBuffer *next;
} DeviceBuffer;

static DeviceBuffer *device_buffers; /* guarded by alloc_lock */

/* host_shared (an i8 in the lowered code) asks for managed memory, which
 * host code may touch too. */
void *mgpuMemAlloc(uint64_t size, void *stream, uint8_t host_shared) {
  (void)stream;
  if (size == 0) return NULL;
  TadCUdeviceptr ptr = 0;
  push_context();
  TadCUresult result = host_shared ? tad_cuMemAllocManaged(&ptr, size, TAD_CU_MEM_ATTACH_GLOBAL)
                                   : tad_cuMemAlloc(&ptr, size);
  pop_context();
  if (result) {
    char text[512];
    fprintf(stderr, "tensorad export: out of GPU memory allocating %llu bytes: %s\n",
            (unsigned long long)size, error_text(result, text, sizeof(text)));
    abort();
  }
  DeviceBuffer *buffer = malloc(sizeof(DeviceBuffer));
  if (!buffer) abort();
  buffer->ptr = (void *)(uintptr_t)ptr;
  buffer->size = size;
  pthread_mutex_lock(&alloc_lock);
  buffer->next = device_buffers;
  device_buffers = buffer;
  live_bytes += size;
  if (live_bytes > peak_bytes) peak_bytes = live_bytes;
  pthread_mutex_unlock(&alloc_lock);
  return buffer->ptr;
}

/* Forget ptr if it is a live device buffer of ours; return whether it was. */
static int forget_device_buffer(void *ptr) {
  pthread_mutex_lock(&alloc_lock);
  DeviceBuffer **link = &device_buffers;
  while (*link && (*link)->ptr != ptr) link = &(*link)->next;
  DeviceBuffer *found = *link;
  if (found) {
    *link = found->next;
    live_bytes -= found->size;
  }
  pthread_mutex_unlock(&alloc_lock);
  free(found);
  return found != NULL;
}

static void free_device_buffer(void *ptr) {
  push_context();
  check(tad_cuMemFree((TadCUdeviceptr)(uintptr_t)ptr), "cuMemFree");
  pop_context();
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (!ptr) return;
  forget_device_buffer(ptr);
  free_device_buffer(ptr);
}

/* tad_end_call's free_device: frees a result that is a device buffer of ours. */
static void tad_free_device(void *ptr) {
  if (forget_device_buffer(ptr)) free_device_buffer(ptr);
}

/* Any direction: pointers are unified (host, device or managed). */
void mgpuMemcpy(void *dst, void *src, size_t size, void *stream) {
  push_context();
  check(tad_cuMemcpyAsync((TadCUdeviceptr)(uintptr_t)dst, (TadCUdeviceptr)(uintptr_t)src, size, stream),
        "cuMemcpyAsync");
  pop_context();
}
