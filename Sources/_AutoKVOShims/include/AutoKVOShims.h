// Low-level primitives for AutoKVO that Swift cannot express portably on the Apple deployment
// targets the package supports: the protocol's atomic operations (AutoKVOProtocolAtomics.h), a
// non-recursive lock, and thread-local slots. Internal to AutoKVO; not API.
#ifndef AUTOKVO_SHIMS_H
#define AUTOKVO_SHIMS_H

#include <stdint.h>
#include <stdlib.h>

#include "AutoKVOProtocolAtomics.h"

#if defined(__APPLE__)
#include <os/lock.h>
typedef os_unfair_lock autokvo_lock_t;
#elif defined(__linux__)
/// A futex word (AutoKVOProtocolAtomics.h): 0 unlocked, 1 locked, 2 locked with threads that
/// may be waiting. Cheaper and smaller than glibc's `pthread_mutex_t`, which every registry would
/// hold: uncontended, this lock costs a compare-and-swap and an exchange, in one `int`. All zero
/// is unlocked, so zero-initialised memory holds a valid lock.
typedef struct {
  autokvo_lock_word_t state;
} autokvo_lock_t;
#else
#include <pthread.h>
typedef pthread_mutex_t autokvo_lock_t;
#endif

/// Initialises a lock in memory its owner allocated and keeps at a fixed address.
static inline void autokvo_lock_init(autokvo_lock_t *_Nonnull lock) {
#if defined(__APPLE__)
  *lock = OS_UNFAIR_LOCK_INIT;
#elif defined(__linux__)
  autokvo_futex_lock_init(&lock->state);
#else
  pthread_mutex_init(lock, NULL);
#endif
}

/// Releases what `autokvo_lock_init` set up; the memory stays its owner's to free.
static inline void autokvo_lock_deinit(autokvo_lock_t *_Nonnull lock) {
#if defined(__APPLE__) || defined(__linux__)
  (void)lock;
#else
  pthread_mutex_destroy(lock);
#endif
}

/// Allocates `size` bytes with malloc, aligned for any object of at most 16-byte alignment; never
/// returns NULL (aborts when out of memory). What Swift's `allocate` does not do for a default
/// alignment: the runtime takes its aligned path there, `posix_memalign` on Linux, which is
/// slower than plain malloc for every block. Free with `autokvo_block_free`.
static inline void *_Nonnull autokvo_block_allocate(size_t size) {
  void *block = malloc(size);
  if (block == NULL) abort();
  return block;
}

static inline void autokvo_block_free(void *_Nonnull block) {
  free(block);
}

/// Allocates and initialises a lock; never returns NULL (aborts when out of memory).
static inline autokvo_lock_t *_Nonnull autokvo_lock_create(void) {
  autokvo_lock_t *lock = (autokvo_lock_t *)malloc(sizeof(autokvo_lock_t));
  if (lock == NULL) abort();
  autokvo_lock_init(lock);
  return lock;
}

static inline void autokvo_lock_destroy(autokvo_lock_t *_Nonnull lock) {
  autokvo_lock_deinit(lock);
  free(lock);
}

#if defined(__linux__)
// Out of line, in shims.c, rather than inline here: ThreadSanitizer sees the lock's acquire and
// release only in code clang compiles with its instrumentation, and the Swift compiler's copy of an
// inline C function may not be instrumented.
void autokvo_lock_lock(autokvo_lock_t *_Nonnull lock);
void autokvo_lock_unlock(autokvo_lock_t *_Nonnull lock);
#else
static inline void autokvo_lock_lock(autokvo_lock_t *_Nonnull lock) {
#if defined(__APPLE__)
  os_unfair_lock_lock(lock);
#else
  pthread_mutex_lock(lock);
#endif
}

static inline void autokvo_lock_unlock(autokvo_lock_t *_Nonnull lock) {
#if defined(__APPLE__)
  os_unfair_lock_unlock(lock);
#else
  pthread_mutex_unlock(lock);
#endif
}
#endif

// Four entry points of the Swift runtime, which Swift exposes no API for: holding an object's
// memory without keeping the object alive (an unowned reference count), retaining it only if its
// deallocation has not begun, and asking whether it has begun. They are part of the Swift
// runtime's stable ABI, exported by libswiftCore with these C signatures (the runtime's
// HeapObject.h) on every Apple OS since Swift 5.0 (which all the deployment targets this package
// declares run) and by every Linux toolchain. Compiled code calls the first three to implement
// `unowned` references; the Objective-C interop of Apple's runtime calls the fourth. Valid for
// native Swift objects only, never for Objective-C ones.
extern void *_Nullable swift_tryRetain(void *_Nonnull object);
extern void *_Nonnull swift_unownedRetain(void *_Nonnull object);
extern void swift_unownedRelease(void *_Nonnull object);
extern _Bool swift_isDeallocating(void *_Nonnull object);

/// Retains a native Swift object unless its deinitialization has begun; returns it, or NULL.
static inline void *_Nullable autokvo_try_retain(void *_Nonnull object) {
  return swift_tryRetain(object);
}

/// Adds an unowned reference to a native Swift object: its memory stays allocated, though it may
/// be deinitialized, until the matching `autokvo_unowned_release`.
static inline void autokvo_unowned_retain(void *_Nonnull object) {
  (void)swift_unownedRetain(object);
}

static inline void autokvo_unowned_release(void *_Nonnull object) {
  swift_unownedRelease(object);
}

/// Whether a native Swift object's deinitialization has begun. The caller must hold a reference
/// that keeps its memory allocated (a strong one, or an unowned count).
static inline _Bool autokvo_is_deallocating(void *_Nonnull object) {
  return swift_isDeallocating(object);
}

/// How many threads are recording key-path dependencies right now. Property getters read it on
/// every access, so it is a plain C global word rather than a Swift global (no lazy-init check).
extern intptr_t autokvo_recording_threads;

static inline int autokvo_is_any_thread_recording(void) {
  return autokvo_recording_count_load(&autokvo_recording_threads) != 0;
}

static inline void autokvo_recording_began(void) {
  autokvo_recording_count_add(&autokvo_recording_threads, 1);
}

static inline void autokvo_recording_ended(void) {
  autokvo_recording_count_add(&autokvo_recording_threads, -1);
}

/// The array of reads this thread is recording into (a `[DependencyRecorder.Access]` on the
/// recording code's stack), or NULL. Only meaningful while recording_threads > 0.
void *_Nullable autokvo_thread_recorder(void);
void autokvo_set_thread_recorder(void *_Nullable recorder);

/// The delivery (its queue or mailbox) of the registration whose registration-time call this
/// thread is about to make, or NULL: that call runs at once when the registering code already runs
/// where the handler must. The call takes the mark (sets NULL) before it runs.
void *_Nullable autokvo_registering_delivery(void);
void autokvo_set_registering_delivery(void *_Nullable delivery);

/// The in-place mutation a collection proxy asks this thread's next `@Observed` getter to perform,
/// or NULL. Only looked at while recording_threads > 0.
void *_Nullable autokvo_thread_mutation(void);
void autokvo_set_thread_mutation(void *_Nullable mutation);

/// How many prior calls of registrations on `@Observable` models are running on this thread.
intptr_t autokvo_model_prior_calls(void);
void autokvo_set_model_prior_calls(intptr_t calls);

/// An address unique to the calling thread for as long as the thread lives.
const void *_Nonnull autokvo_thread_identity(void);

#endif
