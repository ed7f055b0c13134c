#include "AutoKVOShims.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

// The lock of AutoKVOProtocolAtomics.h, out of line (AutoKVOShims.h says why), and the futex
// calls its contended paths make.

void autokvo_lock_lock(autokvo_lock_t *lock) { autokvo_futex_lock(&lock->state); }

void autokvo_lock_unlock(autokvo_lock_t *lock) { autokvo_futex_unlock(&lock->state); }

void autokvo_futex_wait(autokvo_lock_word_t *word, int value) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

void autokvo_futex_wake_one(autokvo_lock_word_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif

intptr_t autokvo_recording_threads = 0;

static _Thread_local void *autokvo_recorder_slot = NULL;
static _Thread_local char autokvo_identity_marker;
static _Thread_local void *autokvo_registering_delivery_slot = NULL;
static _Thread_local void *autokvo_mutation_slot = NULL;
static _Thread_local intptr_t autokvo_model_prior_calls_slot = 0;

void *autokvo_thread_recorder(void) { return autokvo_recorder_slot; }

void autokvo_set_thread_recorder(void *recorder) { autokvo_recorder_slot = recorder; }

const void *autokvo_thread_identity(void) { return &autokvo_identity_marker; }

void *autokvo_registering_delivery(void) { return autokvo_registering_delivery_slot; }

void autokvo_set_registering_delivery(void *delivery) { autokvo_registering_delivery_slot = delivery; }

void *autokvo_thread_mutation(void) { return autokvo_mutation_slot; }

void autokvo_set_thread_mutation(void *mutation) { autokvo_mutation_slot = mutation; }

intptr_t autokvo_model_prior_calls(void) { return autokvo_model_prior_calls_slot; }

void autokvo_set_model_prior_calls(intptr_t calls) { autokvo_model_prior_calls_slot = calls; }
