#include "AutoKVOShims.h"

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
