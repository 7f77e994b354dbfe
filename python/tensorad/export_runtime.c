/* The runtime of a library exported by tensorad (tensorad/export.py).
 *
 * Compiled into every exported library, so that CPU code needs no MLIR
 * library at run time: MLIR's own runtime libraries link libMLIR.so and
 * libLLVM.so (hundreds of megabytes). It implements what tensorad's lowered
 * code calls:
 *
 *   - _mlir_memref_to_llvm_alloc/free (finalize-memref-to-llvm's generic
 *     allocation functions), counting live and peak bytes as
 *     tensorad.runtime does, and knowing which buffers are its own so that a
 *     result can be told apart from an input or a constant it aliases;
 *   - memrefCopy (libmlir_c_runner_utils.so's strided copy);
 *   - the five mlirAsyncRuntime* functions that tad-define-thread-launchers
 *     calls, on a pool of POSIX threads.
 *
 * The generated entry wrapper (export.py appends it to this file) calls
 * tad_begin_call, the compiled function, tad_copy_result per output and
 * tad_end_call. For GPU code, export_cuda_runtime.c (the mgpu* functions, on
 * the CUDA driver loaded at run time) is appended before the wrapper. Only
 * the wrapper's symbols are exported (a version script hides the rest), so
 * two exported libraries can live in one process.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- allocation ---------------------------------------------------------- */

/* Every live buffer starts with this header: a doubly linked list of the
 * live buffers (a result is ours to free only if it is in it) and its size.
 * 32 bytes keep the malloc alignment (16) of the data after it. */
typedef struct Block {
  struct Block *prev, *next;
  uint64_t size, pad;
} Block;

static Block live_list = {&live_list, &live_list, 0, 0};
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t live_bytes, peak_bytes;

void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  Block *block = malloc(sizeof(Block) + (size ? size : 1));
  if (!block) {
    /* Compiled code does not check allocations: stop here, not at a null pointer. */
    fprintf(stderr, "tensorad export: out of memory allocating %llu bytes\n",
            (unsigned long long)size);
    abort();
  }
  block->size = size;
  pthread_mutex_lock(&alloc_lock);
  block->prev = &live_list;
  block->next = live_list.next;
  live_list.next->prev = block;
  live_list.next = block;
  live_bytes += size;
  if (live_bytes > peak_bytes) peak_bytes = live_bytes;
  pthread_mutex_unlock(&alloc_lock);
  return block + 1;
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr) return;
  Block *block = (Block *)ptr - 1;
  pthread_mutex_lock(&alloc_lock);
  block->prev->next = block->next;
  block->next->prev = block->prev;
  live_bytes -= block->size;
  pthread_mutex_unlock(&alloc_lock);
  free(block);
}

/* True if ptr is a live buffer of ours (alloc_lock held). Called after a
 * call, when the live buffers are its results (and other calls' buffers). */
static int tad_owns(const void *ptr) {
  for (Block *b = live_list.next; b != &live_list; b = b->next)
    if (b + 1 == ptr) return 1;
  return 0;
}

static uint64_t call_base;

static void tad_begin_call(void) {
  pthread_mutex_lock(&alloc_lock);
  call_base = peak_bytes = live_bytes;
  pthread_mutex_unlock(&alloc_lock);
}

/* Peak bytes of the last call, less what was live before it. */
static uint64_t tad_peak_bytes(void) { return peak_bytes - call_base; }

/* --- strided copies (memrefCopy, results) -------------------------------- */

/* A ranked memref descriptor: allocated, aligned, offset, sizes[rank], strides[rank]. */
typedef struct {
  char *allocated, *aligned;
  int64_t offset, sizes_strides[];
} Descriptor;

typedef struct {
  int64_t rank;
  Descriptor *descriptor;
} UnrankedMemRef;

static void strided_copy(int64_t elem_size, int64_t rank, const char *src, const int64_t *sizes,
                         const int64_t *src_strides, char *dst, const int64_t *dst_strides) {
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0) return;
  /* The innermost axes both sides store densely make one memcpy block, so a
   * contiguous copy is one memcpy and a slice copies row by row. */
  int64_t block = 1, outer = rank;
  while (outer > 0 && src_strides[outer - 1] == block && dst_strides[outer - 1] == block)
    block *= sizes[--outer];
  size_t block_bytes = (size_t)(block * elem_size);
  if (outer == 0) {
    memmove(dst, src, block_bytes);
    return;
  }
  int64_t index[outer];
  memset(index, 0, sizeof(index));
  for (;;) {
    memmove(dst, src, block_bytes);
    /* Odometer increment of the outer multi-index, moving both pointers. */
    int64_t axis = outer - 1;
    for (; axis >= 0; --axis) {
      src += src_strides[axis] * elem_size;
      dst += dst_strides[axis] * elem_size;
      if (++index[axis] < sizes[axis]) break;
      src -= src_strides[axis] * elem_size * sizes[axis];
      dst -= dst_strides[axis] * elem_size * sizes[axis];
      index[axis] = 0;
    }
    if (axis < 0) return;
  }
}

void memrefCopy(int64_t elem_size, UnrankedMemRef *src, UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  Descriptor *s = src->descriptor, *d = dst->descriptor;
  strided_copy(elem_size, rank, s->aligned + s->offset * elem_size, s->sizes_strides,
               s->sizes_strides + rank, d->aligned + d->offset * elem_size, d->sizes_strides + rank);
}

/* Copy a result into the caller's contiguous buffer. */
static void tad_copy_result(const int64_t *words, int64_t rank, int64_t elem_size, void *out) {
  const Descriptor *desc = (const Descriptor *)words;
  int64_t contiguous[rank > 0 ? rank : 1], step = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    contiguous[i] = step;
    step *= desc->sizes_strides[i];
  }
  strided_copy(elem_size, rank, desc->aligned + desc->offset * elem_size, desc->sizes_strides,
               desc->sizes_strides + rank, out, contiguous);
}

/* Free the results' buffers once all are copied. Two results may share a
 * buffer; a result may alias an input or a constant (not ours: kept). GPU
 * results may be device buffers: free_device frees those that are ours
 * (NULL for CPU code). */
static void tad_end_call(int64_t count, void *const *allocated, void (*free_device)(void *)) {
  pthread_mutex_lock(&alloc_lock);
  int owned[count > 0 ? count : 1];
  for (int64_t i = 0; i < count; ++i) owned[i] = tad_owns(allocated[i]);
  pthread_mutex_unlock(&alloc_lock);
  for (int64_t i = 0; i < count; ++i) {
    int seen = 0;
    for (int64_t j = 0; j < i; ++j) seen |= allocated[j] == allocated[i];
    if (seen || !allocated[i]) continue;
    if (owned[i]) _mlir_memref_to_llvm_free(allocated[i]);
    else if (free_device) free_device(allocated[i]);
  }
}

/* --- the async runtime subset of tad-define-thread-launchers ------------- */

/* A token is awaited by one thread and emplaced by another; one global lock
 * and condition (never destroyed) guard every token, so the emplacing thread
 * never touches a token the waiter may already have freed. */
typedef struct {
  int ready;
  int64_t refs;
} Token;

typedef struct Task {
  void (*fn)(void *);
  void *arg;
  struct Task *next;
} Task;

static pthread_mutex_t async_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t token_ready = PTHREAD_COND_INITIALIZER;
static pthread_cond_t task_queued = PTHREAD_COND_INITIALIZER;
static Task *queue_head, *queue_tail;
static int queued_tasks, idle_workers;

void *mlirAsyncRuntimeCreateToken(void) {
  Token *token = calloc(1, sizeof(Token));
  if (!token) abort();
  token->refs = 1;
  return token;
}

void mlirAsyncRuntimeEmplaceToken(void *token) {
  pthread_mutex_lock(&async_lock);
  ((Token *)token)->ready = 1;
  pthread_cond_broadcast(&token_ready);
  pthread_mutex_unlock(&async_lock);
}

void mlirAsyncRuntimeAwaitToken(void *token) {
  pthread_mutex_lock(&async_lock);
  while (!((Token *)token)->ready) pthread_cond_wait(&token_ready, &async_lock);
  pthread_mutex_unlock(&async_lock);
}

void mlirAsyncRuntimeDropRef(void *token, int64_t count) {
  if (__atomic_sub_fetch(&((Token *)token)->refs, count, __ATOMIC_ACQ_REL) == 0) free(token);
}

static void *worker(void *unused) {
  (void)unused;
  pthread_mutex_lock(&async_lock);
  for (;;) {
    while (!queue_head) {
      ++idle_workers;
      pthread_cond_wait(&task_queued, &async_lock);
      --idle_workers;
    }
    Task *task = queue_head;
    queue_head = task->next;
    if (!queue_head) queue_tail = NULL;
    --queued_tasks;
    pthread_mutex_unlock(&async_lock);
    task->fn(task->arg);
    free(task);
    pthread_mutex_lock(&async_lock);
  }
  return NULL;
}

/* Run fn(arg) on a pool thread. The pool grows when the queued tasks
 * outnumber the idle threads, so it holds as many threads as tasks ever ran
 * at once (threads - 1 per thread loop). */
void mlirAsyncRuntimeExecute(void *arg, void (*fn)(void *)) {
  Task *task = malloc(sizeof(Task));
  if (!task) abort();
  task->fn = fn;
  task->arg = arg;
  task->next = NULL;
  pthread_mutex_lock(&async_lock);
  if (queue_tail) queue_tail->next = task;
  else queue_head = task;
  queue_tail = task;
  int start = ++queued_tasks > idle_workers;
  pthread_cond_signal(&task_queued);
  pthread_mutex_unlock(&async_lock);
  if (start) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker, NULL) != 0) {
      fprintf(stderr, "tensorad export: cannot start a thread\n");
      abort();
    }
    pthread_detach(thread);
  }
}
