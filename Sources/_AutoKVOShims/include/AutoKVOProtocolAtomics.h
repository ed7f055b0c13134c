// Every atomic operation of AutoKVO's lifecycle protocol, each under the name of its role, with its
// memory order chosen here and nowhere else. Swift calls these functions and no other atomic
// (`.ci/atomics-check` rejects any other); the relaxed-memory model (Tests/RelaxedModel, run by
// `.ci/relaxed-check`) includes this same file, so that the orders it checks are the shipped ones.
// Each order says what it pairs with; Docs/Reliability.md, "The relaxed-memory check", says what
// the check covers and what it cannot prove.
//
// Two backends, chosen at compile time:
// - C, the shipped code: the `__atomic` builtins, and the futex through shims.c.
// - Relacy (C++, AUTOKVO_RELACY defined by the model only; Swift's importer never sees it):
//   Relacy's atomics, the futex wait as a yield, and each order replaceable at run time, so that
//   the model can plant a weaker one (see `AUTOKVO_ORDER`).
#ifndef AUTOKVO_PROTOCOL_ATOMICS_H
#define AUTOKVO_PROTOCOL_ATOMICS_H

#include <stdint.h>

#if defined(__cplusplus) && defined(AUTOKVO_RELACY)

typedef rl::atomic<intptr_t> autokvo_word_t;
typedef rl::atomic<int32_t> autokvo_word32_t;
typedef rl::atomic<int> autokvo_lock_word_t;
typedef rl::memory_order autokvo_order_t;
typedef bool autokvo_bool_t;
#if !defined(__clang__)
#define _Nonnull
#endif
#define AUTOKVO_RELAXED rl::mo_relaxed
#define AUTOKVO_ACQUIRE rl::mo_acquire
#define AUTOKVO_RELEASE rl::mo_release
#define AUTOKVO_ACQ_REL rl::mo_acq_rel
#define autokvo_backend_load(word, order) ((word)->load((order), $))
#define autokvo_backend_store(word, value, order) ((word)->store((value), (order), $))
#define autokvo_backend_exchange(word, value, order) ((word)->exchange((value), (order), $))
#define autokvo_backend_add_fetch(word, delta, order) \
  ((word)->fetch_add((delta), (order), $) + (delta))
#define autokvo_backend_compare_exchange(word, expected, desired, success, failure) \
  ((word)->compare_exchange_strong(*(expected), (desired), (success), $, (failure), $))
/// The model's order for `role`: `shipped`, unless the model plants another one for that role.
autokvo_order_t autokvo_model_order(const char *role, autokvo_order_t shipped);
#define AUTOKVO_ORDER(role, shipped) autokvo_model_order(#role, (shipped))
#define AUTOKVO_ROLE inline
// The futex wait returns at once, as a real one may (spuriously): every behaviour of the real lock
// is one of the model's, which sees no lost wake-up.
#define autokvo_futex_wait(word, value) rl::yield(1, $)
#define autokvo_futex_wake_one(word) ((void)0)
#define autokvo_spin_pause() rl::yield(1, $)

#else

typedef intptr_t autokvo_word_t;
typedef int32_t autokvo_word32_t;
typedef int autokvo_lock_word_t;
typedef _Bool autokvo_bool_t;
#define AUTOKVO_RELAXED __ATOMIC_RELAXED
#define AUTOKVO_ACQUIRE __ATOMIC_ACQUIRE
#define AUTOKVO_RELEASE __ATOMIC_RELEASE
#define AUTOKVO_ACQ_REL __ATOMIC_ACQ_REL
#define autokvo_backend_load(word, order) __atomic_load_n((word), (order))
#define autokvo_backend_store(word, value, order) __atomic_store_n((word), (value), (order))
#define autokvo_backend_exchange(word, value, order) __atomic_exchange_n((word), (value), (order))
#define autokvo_backend_add_fetch(word, delta, order) __atomic_add_fetch((word), (delta), (order))
#define autokvo_backend_compare_exchange(word, expected, desired, success, failure) \
  __atomic_compare_exchange_n((word), (expected), (desired), 0, (success), (failure))
#define AUTOKVO_ORDER(role, shipped) (shipped)
#define AUTOKVO_ROLE static inline
#if defined(__linux__)
/// Sleeps while `*word` holds `value`; may return at once. In shims.c.
void autokvo_futex_wait(autokvo_lock_word_t *_Nonnull word, int value);
/// Wakes one thread sleeping on `word`. In shims.c.
void autokvo_futex_wake_one(autokvo_lock_word_t *_Nonnull word);
#endif
AUTOKVO_ROLE void autokvo_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

#endif

// MARK: The lock (Linux, and the model)
//
// The futex mutex of Ulrich Drepper's "Futexes Are Tricky" (its third version), with a short spin
// before sleeping: 0 unlocked, 1 locked, 2 locked and perhaps waited for. A thread that sleeps
// first sets 2, so the unlock that finds 2 knows to wake one; a woken thread sets 2 again when it
// takes the lock, because others may still sleep. Every critical section happens before the next
// one: each acquisition is an acquire read-modify-write that reads the 0 of the previous unlock's
// release exchange (or of the initialisation, published with the lock's owner).
#if defined(__linux__) || defined(AUTOKVO_RELACY)

AUTOKVO_ROLE void autokvo_futex_lock_init(autokvo_lock_word_t *_Nonnull word) {
  // Relaxed: the lock's owner is published to other threads after this, by whatever publishes it.
  autokvo_backend_store(word, 0, AUTOKVO_RELAXED);
}

/// Takes the lock after its first compare-and-swap failed: spins briefly (critical sections are
/// short, and no user code runs under a lock), then sleeps on the futex.
AUTOKVO_ROLE void autokvo_futex_lock_contended(autokvo_lock_word_t *_Nonnull word) {
  for (int spin = 0; spin < 64; spin++) {
    autokvo_spin_pause();
    int expected = 0;
    // The relaxed load only tests before the compare-and-swap, whose acquire pairs with the
    // release of the unlock that wrote the 0.
    if (autokvo_backend_load(word, AUTOKVO_RELAXED) == 0 &&
        autokvo_backend_compare_exchange(word, &expected, 1,
                                         AUTOKVO_ORDER(lock_acquire, AUTOKVO_ACQUIRE),
                                         AUTOKVO_RELAXED)) {
      return;
    }
  }
  // Acquire: pairs with the release exchange of the unlock that wrote the 0 this reads.
  while (autokvo_backend_exchange(word, 2, AUTOKVO_ORDER(lock_acquire, AUTOKVO_ACQUIRE)) != 0) {
    autokvo_futex_wait(word, 2);
  }
}

AUTOKVO_ROLE void autokvo_futex_lock(autokvo_lock_word_t *_Nonnull word) {
  int expected = 0;
  // Acquire on success: pairs with the release exchange of the previous unlock. A failure reads
  // nothing it relies on.
  if (autokvo_backend_compare_exchange(word, &expected, 1,
                                       AUTOKVO_ORDER(lock_acquire, AUTOKVO_ACQUIRE),
                                       AUTOKVO_RELAXED)) {
    return;
  }
  autokvo_futex_lock_contended(word);
}

AUTOKVO_ROLE void autokvo_futex_unlock(autokvo_lock_word_t *_Nonnull word) {
  // Release: the critical section happens before the next acquisition, which reads this 0.
  if (autokvo_backend_exchange(word, 0, AUTOKVO_ORDER(lock_release, AUTOKVO_RELEASE)) == 2) {
    autokvo_futex_wake_one(word);
  }
}

#endif

// MARK: A registration's lifecycle word (KeyValueObservation)

/// Reads the word under the registration's lifecycle lock. Relaxed: every store to the word is
/// made under the same lock, whose acquisition orders it before this read.
AUTOKVO_ROLE intptr_t autokvo_lifecycle_load_locked(autokvo_word_t *_Nonnull word) {
  return autokvo_backend_load(word, AUTOKVO_ORDER(lifecycle_load_locked, AUTOKVO_RELAXED));
}

/// Writes the word under the registration's lifecycle lock, when the registration ends. Release:
/// pairs with the acquire of `autokvo_lifecycle_load_unlocked`, so that a caller that finds the
/// registration ended (the public `isCancelled`) also sees what the ending thread did before it.
AUTOKVO_ROLE void autokvo_lifecycle_store_locked(autokvo_word_t *_Nonnull word, intptr_t value) {
  autokvo_backend_store(word, value, AUTOKVO_ORDER(lifecycle_store, AUTOKVO_RELEASE));
}

/// Reads the word with no lock: the "still active?" check before each delivery, and the public
/// `isCancelled`. Acquire: pairs with `autokvo_lifecycle_store_locked` (`isCancelled`'s guarantee;
/// the delivery check itself needs only coherence: no read is older than a store that happens
/// before it, and the word never returns to active).
AUTOKVO_ROLE intptr_t autokvo_lifecycle_load_unlocked(autokvo_word_t *_Nonnull word) {
  return autokvo_backend_load(word, AUTOKVO_ORDER(lifecycle_load_unlocked, AUTOKVO_ACQUIRE));
}

// MARK: A registry's observed flag (RegistryStorage)

/// Writes the flag under the registry's lock, when the registry's first registration attaches or
/// its last one leaves. Relaxed: the flag is a hint that publishes nothing; a set that reads 1
/// reads everything again under the lock.
AUTOKVO_ROLE void autokvo_observed_flag_store_locked(autokvo_word32_t *_Nonnull flag,
                                                     int32_t value) {
  autokvo_backend_store(flag, value, AUTOKVO_ORDER(observed_flag_store, AUTOKVO_RELAXED));
}

/// Reads the flag with no lock, on every `@Observed` set. Relaxed: by coherence, a registration
/// attached before the set (in happens-before) is seen; one attached concurrently may be seen or
/// not, as it may be ordered after the set.
AUTOKVO_ROLE int32_t autokvo_observed_flag_load(autokvo_word32_t *_Nonnull flag) {
  return autokvo_backend_load(flag, AUTOKVO_ORDER(observed_flag_load, AUTOKVO_RELAXED));
}

// MARK: A property snapshot's count of holders (PropertySnapshot)

/// Takes one more hold, under the registry's lock, by a thread that reaches the snapshot through a
/// holder (its property). Relaxed: as a reference count's increment, it publishes nothing; the
/// lock orders it before the holder's own decrement.
AUTOKVO_ROLE void autokvo_snapshot_add_holder(autokvo_word32_t *_Nonnull holders) {
  (void)autokvo_backend_add_fetch(holders, 1, AUTOKVO_ORDER(snapshot_add_holder, AUTOKVO_RELAXED));
}

/// Gives back one hold and returns how many remain; the caller that brings the count to 0 frees
/// the snapshot. Acquire-release, as a reference count's decrement: the release publishes this
/// holder's reads of the snapshot, and the acquire of the last decrement orders every holder's
/// reads before the free.
AUTOKVO_ROLE int32_t autokvo_snapshot_remove_holder(autokvo_word32_t *_Nonnull holders) {
  return autokvo_backend_add_fetch(holders, -1,
                                   AUTOKVO_ORDER(snapshot_remove_holder, AUTOKVO_ACQ_REL));
}

// MARK: The Observation registrar slot (RegistryStorage, ObservationRegistrarBox)

/// Publishes a newly made registrar's address in the empty slot; returns whether this thread's
/// was published (another thread's may have been first). Release on success: the registrar's
/// contents happen before any acquire load that reads its address. Relaxed on failure: the loser
/// reads nothing through the value it found, and loads the winner's address again with
/// `autokvo_registrar_slot_load`.
AUTOKVO_ROLE autokvo_bool_t autokvo_registrar_slot_publish(autokvo_word_t *_Nonnull slot,
                                                           intptr_t address) {
  intptr_t expected = 0;
  return autokvo_backend_compare_exchange(slot, &expected, address,
                                          AUTOKVO_ORDER(registrar_publish, AUTOKVO_RELEASE),
                                          AUTOKVO_RELAXED);
}

/// The registrar's address, or 0, for a caller that uses the registrar. Acquire: pairs with the
/// publication's release. Also read so by the registry's deinit, where the object's release has
/// already ordered everything: the acquire there is for ThreadSanitizer, which does not see the
/// runtime's release.
AUTOKVO_ROLE intptr_t autokvo_registrar_slot_load(autokvo_word_t *_Nonnull slot) {
  return autokvo_backend_load(slot, AUTOKVO_ORDER(registrar_load, AUTOKVO_ACQUIRE));
}

/// Whether a registrar is published, for a caller that only tests it (any use goes through
/// `autokvo_registrar_slot_load`). Relaxed: the answer is a hint.
AUTOKVO_ROLE autokvo_bool_t autokvo_registrar_slot_is_set(autokvo_word_t *_Nonnull slot) {
  return autokvo_backend_load(slot, AUTOKVO_RELAXED) != 0;
}

// MARK: The object a registry serves (ObservationRegistry.serves)

/// The address of the object a registry serves, or 0 before its first registration or recorded
/// read. Relaxed: the address is only compared with another object's, never used to reach one.
AUTOKVO_ROLE intptr_t autokvo_registry_owner_load(autokvo_word_t *_Nonnull slot) {
  return autokvo_backend_load(slot, AUTOKVO_RELAXED);
}

/// Records `address` as the object the registry serves, unless an object was recorded first;
/// returns whether this call recorded it. Relaxed on both paths, for the reason of the load: the
/// loser compares the winner's address, which it loads again.
AUTOKVO_ROLE autokvo_bool_t autokvo_registry_owner_claim(autokvo_word_t *_Nonnull slot,
                                                        intptr_t address) {
  intptr_t expected = 0;
  return autokvo_backend_compare_exchange(slot, &expected, address, AUTOKVO_RELAXED,
                                          AUTOKVO_RELAXED);
}

// MARK: The count of threads recording key-path dependencies (DependencyRecorder)

/// Adds or removes one recording thread. Relaxed: the only reader that must see the count
/// non-zero is the recording thread itself, whose own increment is sequenced before its gets
/// (coherence: it reads its increment or a later value of the count, and every later change
/// is another thread's increment or its matching decrement); other threads' reads are hints
/// followed by a thread-local check.
AUTOKVO_ROLE void autokvo_recording_count_add(autokvo_word_t *_Nonnull count, intptr_t delta) {
  (void)autokvo_backend_add_fetch(count, delta,
                                  AUTOKVO_ORDER(recording_count_add, AUTOKVO_RELAXED));
}

/// Reads the count on every `@Observed` get. Relaxed: see `autokvo_recording_count_add`.
AUTOKVO_ROLE intptr_t autokvo_recording_count_load(autokvo_word_t *_Nonnull count) {
  return autokvo_backend_load(count, AUTOKVO_ORDER(recording_count_load, AUTOKVO_RELAXED));
}

#endif
