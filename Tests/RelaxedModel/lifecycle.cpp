// The lifecycle protocol's atomic operations under the C11 memory model, checked by Relacy
// (Debian's relacy-dev) through `.ci/relaxed-check`; Docs/Reliability.md, "The relaxed-memory
// check", says what it covers and what it cannot prove.
//
// It includes the shipped header of role-named atomic operations
// (Sources/_AutoKVOShims/include/AutoKVOProtocolAtomics.h) under its Relacy backend, so that the
// orders checked are the orders shipped, and transcribes the Swift code around them. A change to
// that code, or to the protocol, changes this model in the same commit, as it does
// Tests/LifecycleModel/lifecycle.pml.
//
// Usage: lifecycle [--bound N] [--registrations 1|2] [--plant NAME] lifecycle|registrar|recording
// Prints one line; exits 0 when no error was found. A plant replaces one order with a weaker one,
// or leaves one step of the protocol out (see `main`).
#include <relacy/relacy.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define AUTOKVO_RELACY 1
#include "../../Sources/_AutoKVOShims/include/AutoKVOProtocolAtomics.h"

// MARK: Plants

static const char *plantedRole = nullptr;  // the role whose order is replaced
static rl::memory_order plantedOrder = rl::mo_seq_cst;
static bool plantNoActiveCheck = false;       // the "still active?" check before delivery left out
static bool plantDeinitWithoutStripe = false;  // a deinit ends without the lifecycle lock
static bool plantRecordingNotCounted = false;  // a recording thread forgets its own increment

autokvo_order_t autokvo_model_order(const char *role, autokvo_order_t shipped) {
  if (plantedRole && !strcmp(role, plantedRole)) return plantedOrder;
  return shipped;
}

// MARK: The lifecycle

// RegistrationLifecycle's words.
enum { ACTIVE = 0, CANCELLED = 1, OBSERVER_DEALLOCATED = 2, OBSERVED_DEALLOCATED = 3 };

// PropertySnapshot: its count of holders (the property's hold counts one), and the registrations
// it delivers to, frozen.
template <int Registrations>
struct Snapshot {
  autokvo_word32_t holders;
  rl::var<int> holds[Registrations];

  Snapshot() {
    holders.store(1, rl::mo_relaxed, $);
    for (int r = 0; r < Registrations; r++) holds[r]($) = 0;
  }
};

// RegistryStorage: the lock, the observed flag and the state (the incoming and outgoing
// sentinels, and one @Observed property's current snapshot). Freed at the end of the registry's
// deinit.
template <int Registrations>
struct Registry {
  autokvo_lock_word_t mutex;
  autokvo_word32_t observedFlag;
  rl::var<int> incoming[Registrations];
  rl::var<int> outgoing[Registrations];
  rl::var<Snapshot<Registrations> *> snapshot;

  Registry() {
    autokvo_futex_lock_init(&mutex);
    observedFlag.store(0, rl::mo_relaxed, $);
    for (int r = 0; r < Registrations; r++) {
      incoming[r]($) = 0;
      outgoing[r]($) = 0;
    }
    snapshot($) = nullptr;
  }
};

// KeyValueObservation: the lifecycle word and both registries, which are valid while it is active.
template <int Registrations>
struct Observation {
  autokvo_word_t lifecycle;
  rl::var<Registry<Registrations> *> observedRegistry;
  rl::var<Registry<Registrations> *> observerRegistry;
  rl::var<int> teardowns;  // how many times `end` tore it down: not in the Swift code

  Observation() {
    lifecycle.store(ACTIVE, rl::mo_relaxed, $);
    observedRegistry($) = nullptr;
    observerRegistry($) = nullptr;
    teardowns($) = 0;
  }
};

// Two objects, X and Y, each with its registry. Registration 0: Y observes X; with two, also
// registration 1: X observes Y, so that both deinits meet both ways. Four threads: 0 drops its
// reference to X; 1 drops the only reference to Y; 2 cancels registration 0, then tells the
// mutating thread that `cancel()` returned (a release store, as a lock, a queue or an actor would);
// 3 holds X and sets its @Observed property, then drops X. Whoever drops an object's last
// reference runs its registry's deinit. Every registration shares one lifecycle stripe, the worst
// case.
template <int Registrations>
struct LifecycleTest : rl::test_suite<LifecycleTest<Registrations>, 4> {
  typedef Registry<Registrations> RegistryT;
  typedef Snapshot<Registrations> SnapshotT;

  autokvo_lock_word_t stripe;  // LifecycleLocks
  rl::atomic<int> strong[2];   // Swift's strong counts of X (0) and Y (1)
  RegistryT *registry[2];      // immutable while the object lives
  Observation<Registrations> *observation[Registrations];
  int observerOf[Registrations], observedOf[Registrations];
  rl::atomic<int> cancelReturned;
  rl::var<int> beforeCancel;  // what the cancelling thread wrote before it called cancel()
  rl::var<int> freed[2];  // whether each registry was freed: not in the Swift code

  static void freeSnapshot(SnapshotT *snapshot) {
    for (int r = 0; r < Registrations; r++) snapshot->holds[r]($) = -1;  // a free writes
    delete snapshot;
  }

  // ObservedProperty.dropSnapshot: gives back the property's hold, under the registry's lock.
  static void dropSnapshot(RegistryT *registry) {
    SnapshotT *snapshot = registry->snapshot($);
    registry->snapshot($) = nullptr;
    if (snapshot && autokvo_snapshot_remove_holder(&snapshot->holders) == 0) freeSnapshot(snapshot);
  }

  // RegistryStorage.detachObservedSide(of:)
  static void detachObservedSide(RegistryT *registry, int r) {
    autokvo_futex_lock(&registry->mutex);
    if (registry->incoming[r]($)) {
      dropSnapshot(registry);  // registrationsChanged: the property's snapshot holds it
      registry->incoming[r]($) = 0;
      bool empty = true;
      for (int i = 0; i < Registrations; i++) empty = empty && !registry->incoming[i]($);
      if (empty) autokvo_observed_flag_store_locked(&registry->observedFlag, 0);
    }
    autokvo_futex_unlock(&registry->mutex);
  }

  // RegistryStorage.detachObserverSide(of:)
  static void detachObserverSide(RegistryT *registry, int r) {
    autokvo_futex_lock(&registry->mutex);
    registry->outgoing[r]($) = 0;
    autokvo_futex_unlock(&registry->mutex);
  }

  // KeyValueObservation.end(_:) and RegistrationLifecycle.end(_:): the word is stored only when
  // the registration ends.
  void end(int r, int reason) {
    Observation<Registrations> *o = observation[r];
    bool locked = !(plantDeinitWithoutStripe && reason != CANCELLED);
    if (locked) autokvo_futex_lock(&stripe);
    if (autokvo_lifecycle_load_locked(&o->lifecycle) == ACTIVE) {
      autokvo_lifecycle_store_locked(&o->lifecycle, reason);
      o->teardowns($) = o->teardowns($) + 1;
      RL_ASSERT(o->teardowns($) == 1);  // at most one teardown
      RegistryT *observed = o->observedRegistry($);
      RegistryT *observer = o->observerRegistry($);
      o->observedRegistry($) = nullptr;
      o->observerRegistry($) = nullptr;
      if (reason != OBSERVED_DEALLOCATED) detachObservedSide(observed, r);
      if (reason != OBSERVER_DEALLOCATED) detachObserverSide(observer, r);
    }
    if (locked) autokvo_futex_unlock(&stripe);
  }

  // ObservationRegistry.deinit, then RegistryReference.deallocate(): moves its sentinels out under
  // its lock, drops the property's snapshot and clears the flag, ends each registration it took
  // part in, and frees the storage.
  void registryDeinit(int object) {
    RegistryT *g = registry[object];
    int incoming[Registrations], outgoing[Registrations];
    autokvo_futex_lock(&g->mutex);
    for (int r = 0; r < Registrations; r++) {
      incoming[r] = g->incoming[r]($);
      outgoing[r] = g->outgoing[r]($);
      g->incoming[r]($) = 0;
      g->outgoing[r]($) = 0;
    }
    dropSnapshot(g);
    autokvo_observed_flag_store_locked(&g->observedFlag, 0);
    autokvo_futex_unlock(&g->mutex);
    for (int r = 0; r < Registrations; r++)
      if (incoming[r]) end(r, OBSERVED_DEALLOCATED);
    for (int r = 0; r < Registrations; r++)
      if (outgoing[r]) end(r, OBSERVER_DEALLOCATED);
    for (int r = 0; r < Registrations; r++) {  // a free writes
      g->incoming[r]($) = -1;
      g->outgoing[r]($) = -1;
    }
    delete g;
    freed[object]($) = 1;
  }

  // The Swift runtime's release: a release decrement; the last one fences with acquire and runs
  // the deinit, which destroys the registry. (Assumed of the runtime, not checked.)
  void release(int object) {
    if (strong[object].fetch_add(-1, rl::mo_release, $) == 1) {
      rl::atomic_thread_fence(rl::mo_acquire, $);
      registryDeinit(object);
    }
  }

  void before() {
    autokvo_futex_lock_init(&stripe);
    cancelReturned.store(0, rl::mo_relaxed, $);
    beforeCancel($) = 0;
    strong[0].store(2, rl::mo_relaxed, $);  // X: its owner's and the mutating thread's
    strong[1].store(1, rl::mo_relaxed, $);  // Y: its owner's
    for (int o = 0; o < 2; o++) {
      registry[o] = new RegistryT();
      freed[o]($) = 0;
    }
    for (int r = 0; r < Registrations; r++) {
      observedOf[r] = r == 0 ? 0 : 1;
      observerOf[r] = r == 0 ? 1 : 0;
      // HandlerSentinel.register: attachUnpublished, then both sides attached.
      observation[r] = new Observation<Registrations>();
      observation[r]->observedRegistry($) = registry[observedOf[r]];
      observation[r]->observerRegistry($) = registry[observerOf[r]];
      registry[observedOf[r]]->incoming[r]($) = 1;
      autokvo_observed_flag_store_locked(&registry[observedOf[r]]->observedFlag, 1);
      registry[observerOf[r]]->outgoing[r]($) = 1;
    }
    // X's property was set while observed: its snapshot holds registration 0.
    SnapshotT *snapshot = new SnapshotT();
    snapshot->holds[0]($) = 1;
    registry[0]->snapshot($) = snapshot;
  }

  void thread(unsigned index) {
    switch (index) {
      case 0:
        release(0);
        break;
      case 1:
        release(1);
        break;
      case 2:
        beforeCancel($) = 1;
        end(0, CANCELLED);  // KeyValueObservation.cancel()
        cancelReturned.store(1, rl::mo_release, $);
        break;
      case 3:
        set();
        release(0);
        break;
    }
  }

  // The @Observed setter of X, with ObservationRegistry's willPerformAutomaticChange and
  // didPerformAutomaticChange, and HandlerSentinel's delivery check.
  void set() {
    RegistryT *g = registry[0];
    if (autokvo_observed_flag_load(&g->observedFlag) == 0) return;
    autokvo_futex_lock(&g->mutex);
    SnapshotT *snapshot = g->snapshot($);
    if (snapshot) autokvo_snapshot_add_holder(&snapshot->holders);
    autokvo_futex_unlock(&g->mutex);
    if (!snapshot) return;
    // Whether this thread has learnt that cancel() returned, just before the check: the check
    // must then find the registration ended.
    int sawCancel = cancelReturned.load(rl::mo_acquire, $);
    if (snapshot->holds[0]($) &&
        (plantNoActiveCheck ||
         autokvo_lifecycle_load_unlocked(&observation[0]->lifecycle) == ACTIVE)) {
      RL_ASSERT(!sawCancel);  // the handler runs here: never after cancel() returned
    }
    if (autokvo_snapshot_remove_holder(&snapshot->holders) == 0) freeSnapshot(snapshot);
    // KeyValueObservation.isCancelled: a caller that finds the registration cancelled sees what
    // the cancelling thread did before it called cancel().
    if (autokvo_lifecycle_load_unlocked(&observation[0]->lifecycle) == CANCELLED) {
      RL_ASSERT(beforeCancel($) == 1);
    }
  }

  void after() {
    for (int r = 0; r < Registrations; r++) {
      RL_ASSERT(observation[r]->lifecycle.load(rl::mo_relaxed, $) != ACTIVE);
      RL_ASSERT(observation[r]->teardowns($) == 1);  // exactly once
      delete observation[r];
    }
    RL_ASSERT(freed[0]($) == 1 && freed[1]($) == 1);
  }
};

// MARK: The Observation registrar

// ObservationRegistrarBox: made by an object's first tracked read and published in its registry's
// slot; the registry's deinit releases it.
struct Registrar {
  rl::var<int> contents;
};

// Three threads read the object (each holding a reference to it): each uses the registrar,
// publishing one when there is none yet, then drops its reference; the last one runs the deinit.
struct RegistrarTest : rl::test_suite<RegistrarTest, 3> {
  autokvo_word_t slot;
  rl::atomic<int> strong;

  void before() {
    slot.store(0, rl::mo_relaxed, $);
    strong.store(3, rl::mo_relaxed, $);
  }

  void thread(unsigned) {
    // `swiftObservationRegistrar`: `existingSwiftObservationRegistrar ?? make…()`.
    Registrar *registrar = reinterpret_cast<Registrar *>(autokvo_registrar_slot_load(&slot));
    if (!registrar) {
      Registrar *made = new Registrar();
      made->contents($) = 42;
      if (autokvo_registrar_slot_publish(&slot, reinterpret_cast<intptr_t>(made))) {
        registrar = made;
      } else {
        delete made;
        registrar = reinterpret_cast<Registrar *>(autokvo_registrar_slot_load(&slot));
      }
    }
    RL_ASSERT(registrar->contents($) == 42);
    if (strong.fetch_add(-1, rl::mo_release, $) == 1) {
      rl::atomic_thread_fence(rl::mo_acquire, $);
      // ObservationRegistry.deinit releases the registrar.
      if (Registrar *tracked = reinterpret_cast<Registrar *>(autokvo_registrar_slot_load(&slot))) {
        tracked->contents($) = -1;
        delete tracked;
      }
    }
  }
};

// MARK: The recording count

// Two threads each record a key path's dependencies (DependencyRecorder.evaluate): a recording
// thread's own gets must see the count non-zero, whatever the other does.
struct RecordingTest : rl::test_suite<RecordingTest, 2> {
  autokvo_word_t count;

  void before() { count.store(0, rl::mo_relaxed, $); }

  void thread(unsigned) {
    if (!plantRecordingNotCounted) autokvo_recording_count_add(&count, 1);
    RL_ASSERT(autokvo_recording_count_load(&count) != 0);  // the getter notices the recording
    if (!plantRecordingNotCounted) autokvo_recording_count_add(&count, -1);
  }

  void after() { RL_ASSERT(count.load(rl::mo_relaxed, $) == 0); }
};

// MARK: Running

static bool plant(const char *name) {
  struct OrderPlant {
    const char *name, *role;
    rl::memory_order order;
  };
  static const OrderPlant orders[] = {
      {"lock_release_relaxed", "lock_release", rl::mo_relaxed},
      {"lock_acquire_relaxed", "lock_acquire", rl::mo_relaxed},
      {"remove_holder_release_only", "snapshot_remove_holder", rl::mo_release},
      {"remove_holder_acquire_only", "snapshot_remove_holder", rl::mo_acquire},
      {"registrar_publish_relaxed", "registrar_publish", rl::mo_relaxed},
      {"registrar_load_relaxed", "registrar_load", rl::mo_relaxed},
      {"lifecycle_store_relaxed", "lifecycle_store", rl::mo_relaxed},
      {"lifecycle_load_unlocked_relaxed", "lifecycle_load_unlocked", rl::mo_relaxed},
  };
  for (const OrderPlant &p : orders) {
    if (!strcmp(name, p.name)) {
      plantedRole = p.role;
      plantedOrder = p.order;
      return true;
    }
  }
  if (!strcmp(name, "no_active_check")) return plantNoActiveCheck = true;
  if (!strcmp(name, "deinit_without_stripe")) return plantDeinitWithoutStripe = true;
  if (!strcmp(name, "recording_not_counted")) return plantRecordingNotCounted = true;
  return false;
}

int main(int argc, char **argv) {
  rl::test_params params;
  params.search_type = rl::sched_bound;
  params.context_bound = 2;
  params.output_history = false;
  int registrations = 1;
  const char *test = nullptr;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--bound") && i + 1 < argc) {
      params.context_bound = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--registrations") && i + 1 < argc) {
      registrations = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--plant") && i + 1 < argc) {
      if (!plant(argv[++i])) {
        fprintf(stderr, "unknown plant %s\n", argv[i]);
        return 2;
      }
    } else {
      test = argv[i];
    }
  }
  bool ok;
  if (test && !strcmp(test, "lifecycle")) {
    ok = registrations == 2 ? rl::simulate<LifecycleTest<2> >(params)
                            : rl::simulate<LifecycleTest<1> >(params);
  } else if (test && !strcmp(test, "registrar")) {
    ok = rl::simulate<RegistrarTest>(params);
  } else if (test && !strcmp(test, "recording")) {
    ok = rl::simulate<RecordingTest>(params);
  } else {
    fprintf(stderr,
            "usage: lifecycle [--bound N] [--registrations 1|2] [--plant NAME] "
            "lifecycle|registrar|recording\n");
    return 2;
  }
  printf("%s: %s after %llu executions\n", test, ok ? "no error" : "ERROR FOUND",
         (unsigned long long)params.stop_iteration);
  return ok ? 0 : 1;
}
