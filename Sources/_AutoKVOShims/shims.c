#include "AutoKVOShims.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

// The lock is the futex mutex of Ulrich Drepper's "Futexes Are Tricky" (its third version), with a
// short spin before sleeping: 0 unlocked, 1 locked, 2 locked and perhaps waited for. A thread that
// sleeps first sets 2, so the unlock that finds 2 knows to wake one; a woken thread sets 2 again
// when it takes the lock, because others may still sleep.

void autokvo_lock_lock(autokvo_lock_t *lock) {
  int expected = 0;
  if (__atomic_compare_exchange_n(&lock->state, &expected, 1, 0, __ATOMIC_ACQUIRE,
                                  __ATOMIC_RELAXED)) {
    return;
  }
  autokvo_lock_lock_contended(lock);
}

void autokvo_lock_unlock(autokvo_lock_t *lock) {
  if (__atomic_exchange_n(&lock->state, 0, __ATOMIC_RELEASE) == 2) {
    autokvo_lock_wake_waiter(lock);
  }
}

static inline void autokvo_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

void autokvo_lock_lock_contended(autokvo_lock_t *lock) {
  // Critical sections here are short (no user code runs under a lock): the holder usually
  // releases within a few hundred cycles, sooner than a sleep and a wake would take.
  for (int spin = 0; spin < 64; spin++) {
    autokvo_spin_pause();
    int expected = 0;
    if (__atomic_load_n(&lock->state, __ATOMIC_RELAXED) == 0 &&
        __atomic_compare_exchange_n(&lock->state, &expected, 1, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      return;
    }
  }
  while (__atomic_exchange_n(&lock->state, 2, __ATOMIC_ACQUIRE) != 0) {
    // Sleeps only while the word is still 2; returns at once if it changed meanwhile.
    syscall(SYS_futex, &lock->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
  }
}

void autokvo_lock_wake_waiter(autokvo_lock_t *lock) {
  syscall(SYS_futex, &lock->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif

intptr_t autokvo_recording_threads = 0;

static _Thread_local void *autokvo_recorder_slot = NULL;
static _Thread_local char autokvo_identity_marker;
static _Thread_local void *autokvo_registering_delivery_slot = NULL;
static _Thread_local void *autokvo_mutation_slot = NULL;

void *autokvo_thread_recorder(void) { return autokvo_recorder_slot; }

void autokvo_set_thread_recorder(void *recorder) { autokvo_recorder_slot = recorder; }

const void *autokvo_thread_identity(void) { return &autokvo_identity_marker; }

void *autokvo_registering_delivery(void) { return autokvo_registering_delivery_slot; }

void autokvo_set_registering_delivery(void *delivery) { autokvo_registering_delivery_slot = delivery; }

void *autokvo_thread_mutation(void) { return autokvo_mutation_slot; }

void autokvo_set_thread_mutation(void *mutation) { autokvo_mutation_slot = mutation; }
