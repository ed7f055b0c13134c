/*
 * The lifecycle protocol of AutoKVO's registrations, as a Promela model that `spin` checks in
 * every interleaving. Run it with `.ci/model-check` (Docs/Reliability.md, "The lifecycle model").
 *
 * It models the protocol, not the compiled code: each inline and process names the Swift function
 * it stands for, and a change to the protocol in the code changes this file in the same commit.
 *
 * The configuration: two objects, X and Y, each with its `ObservationRegistry`, and three
 * registrations.
 *   r0: Y observes X.
 *   r1: X observes Y (so each object is both observer and observed, and the two registries'
 *       deinits meet in both orders when both objects die at once).
 *   r2: X observes itself, registered (or not, chosen nondeterministically) from inside X's own
 *       deinit body, while X's registry is still alive.
 *   r3: Y observes X a second time, so that a set's snapshot holds two registrations and the
 *       handler of one can cancel the other before its turn.
 * Four threads, each a process: one owns the last outside reference to X and releases it, one does
 * the same for Y, one sets a property of X (delivering to r0 and r3, whose handlers may cancel their
 * own registration or any other, and may release the last reference to the observer), and one
 * cancels r0, r1 or r3 from outside. Every lifecycle lock is one stripe, the worst case of the
 * 64 striped locks (`LifecycleLocks`): two registrations sharing a stripe must not deadlock.
 *
 * Planted bugs, each of which the check must catch (`.ci/model-check` runs them as negative
 * checks): -DBUG_NO_LIFECYCLE_LOCK (a registry's deinit ends a registration without the lifecycle
 * lock), -DBUG_CHECK_AFTER_HANDLER (the "still active?" check made after the handler call),
 * -DBUG_NO_PROMOTION (the handler called with the observer checked, not retained),
 * -DBUG_COUNTED_REGISTRY (the registration holds the observer's registry by a counted reference, as
 * the engine once did: its release under the lifecycle lock can run the registry's deinit there).
 */

#define NREG 4
#define NOBJ 2
#define X 0
#define Y 1
#define NONE 255

/* RegistrationLifecycle.State: ACTIVE, or the EndReason. */
#define ACTIVE 0
#define CANCELLED 1
#define OBSERVER_DEALLOCATED 2
#define OBSERVED_DEALLOCATED 3

/* The life of an object's memory (`ObjectReference`): strong references keep it ALIVE; the deinit
 * runs in DEINIT; DONE once its stored properties (its registry) are destroyed; FREED when no
 * unowned count holds the memory any more. */
#define ALIVE 0
#define DEINIT 1
#define DONE 2
#define FREED 3

/* KeyValueObservation: the lifecycle word and the two registries, per registration. */
byte life[NREG];
bit attached[NREG];
byte observedRegistry[NREG];
byte observerRegistry[NREG];
byte observerOf[NREG];
byte observedOf[NREG];

/* Ghosts for the properties. */
byte teardowns[NREG];
byte finished;   /* threads that have finished */
bit cancelReturned[NREG];

/* LifecycleLocks: one stripe for every registration. */
byte lifecycleLock = NONE;

/* ObservationRegistry / RegistryStorage, per object. */
byte registryLock[NOBJ];
bit storageValid[NOBJ];
bit incoming[8];   /* incoming[o * NREG + r]: o's registry owns r's ObservedSentinel */
bit outgoing[8];   /* outgoing[o * NREG + r]: o's registry holds r's ObserverSentinel */
byte registryCount[NOBJ];   /* references to the ObservationRegistry object itself */

/* The observed-side sentinel of each registration: its reference count and its memory. */
byte sentinelCount[NREG];
bit sentinelAllocated[NREG];

/* The objects. */
byte strong[NOBJ];
byte unowned[NOBJ];
byte objectState[NOBJ];

/* The scratch variables every inline below uses, declared by each process that calls them. */
#define SCRATCH byte i, ro, rb, other; bit detached, retained, sampled, last; bit movedIn[NREG], movedOut[NREG]

inline lock(l) { atomic { l == NONE -> l = _pid } }
inline unlock(l) { assert(l == _pid); l = NONE }

inline lockRegistry(o) {
  assert(storageValid[o]);   /* the pointer with no reference count is valid */
  lock(registryLock[o])
}

/* ObjectReference.release(): an unowned count given back; frees the memory if it was the last. */
inline releaseUnowned(o) {
  atomic {
    assert(unowned[o] > 0);
    unowned[o]--;
    if
    :: unowned[o] == 0 && objectState[o] == DONE -> objectState[o] = FREED
    :: else -> skip
    fi
  }
}

/* swift_tryRetain (ObjectReference.load): reads the object's counts, so its memory must be
 * valid; succeeds only before the deinit begins. */
inline tryRetain(o, retained) {
  atomic {
    assert(objectState[o] != FREED);
    if
    :: objectState[o] == ALIVE -> strong[o]++; retained = 1
    :: else -> retained = 0
    fi
  }
}

/* Releasing an ObservedSentinel: HandlerSentinel.deinit releases its two ObjectReferences. */
inline releaseSentinel(r) {
  atomic {   /* the decrement tells the releasing thread whether it was the last */
    assert(sentinelAllocated[r] && sentinelCount[r] > 0);
    sentinelCount[r]--;
    last = (sentinelCount[r] == 0)
  }
  if
  :: last ->
    sentinelAllocated[r] = 0;
    releaseUnowned(observerOf[r]);
    releaseUnowned(observedOf[r])
  :: else -> skip
  fi
}

/* RegistryStorage.detachObservedSide(of:): called under the lifecycle lock. */
inline detachObservedSide(o, r) {
  lockRegistry(o);
  if
  :: incoming[o * NREG + r] -> incoming[o * NREG + r] = 0; detached = 1
  :: else -> detached = 0   /* the registry's own deinit moved it out */
  fi;
  unlock(registryLock[o])
}

/* RegistryStorage.detachObserverSide(of:) */
inline detachObserverSide(o, r) {
  lockRegistry(o);
  outgoing[o * NREG + r] = 0;
  unlock(registryLock[o])
}

/* KeyValueObservation.end(_:), with RegistrationLifecycle.end(_:) as its transition. */
inline end(r, reason) {
  detached = 0;
#ifndef BUG_NO_LIFECYCLE_LOCK
  lock(lifecycleLock);
#else
  if
  :: reason == CANCELLED -> lock(lifecycleLock)
  :: else -> skip   /* the planted bug: a registry's deinit skips the lock */
  fi;
#endif
  if
  :: life[r] == ACTIVE ->
    assert(attached[r]);
    life[r] = reason;
    teardowns[r]++;
    assert(teardowns[r] == 1);   /* exactly one teardown per registration */
    ro = observedRegistry[r];
    rb = observerRegistry[r];
    observedRegistry[r] = NONE;
    observerRegistry[r] = NONE;
    if
    :: reason != OBSERVED_DEALLOCATED -> detachObservedSide(ro, r)
    :: else -> skip
    fi;
    if
    :: reason != OBSERVER_DEALLOCATED ->
#ifdef BUG_COUNTED_REGISTRY
      registryCount[rb]++;   /* a counted reference to the observer's registry, held here */
#endif
      detachObserverSide(rb, r);
#ifdef BUG_COUNTED_REGISTRY
      atomic { registryCount[rb]--; last = (registryCount[rb] == 0) };
      if
      :: last ->
        /* The last release: the registry's deinit runs here, under the lifecycle lock, and
         * ends the registrations it still holds, each under its lifecycle lock. */
        if
        :: (incoming[rb * NREG + 0] || incoming[rb * NREG + 1] || incoming[rb * NREG + 2] ||
            incoming[rb * NREG + 3] || outgoing[rb * NREG + 0] || outgoing[rb * NREG + 1] ||
            outgoing[rb * NREG + 2] || outgoing[rb * NREG + 3]) ->
          lock(lifecycleLock)
        :: else -> skip
        fi
      :: else -> skip
      fi
#endif
    :: else -> skip
    fi
  :: else -> skip
  fi;
#ifndef BUG_NO_LIFECYCLE_LOCK
  unlock(lifecycleLock);
#else
  if
  :: lifecycleLock == _pid -> unlock(lifecycleLock)
  :: else -> skip
  fi;
#endif
  /* The detached sentinel is released after the lock is dropped. */
  if
  :: detached -> releaseSentinel(r)
  :: else -> skip
  fi
}

/* KeyValueObservation.cancel() */
inline cancel(r) {
  end(r, CANCELLED);
  cancelReturned[r] = 1
}

/* HandlerSentinel.register: attach both sentinels (ObservationRegistry.attach, twice). */
inline register(r, observer, observed) {
  observerOf[r] = observer;
  observedOf[r] = observed;
  unowned[observer]++;
  unowned[observed]++;
  sentinelAllocated[r] = 1;
  sentinelCount[r] = 1;   /* the local reference */
  observedRegistry[r] = observed;   /* attachUnpublished */
  observerRegistry[r] = observer;
  attached[r] = 1;
  lockRegistry(observed);
  incoming[observed * NREG + r] = 1;
  sentinelCount[r]++;
  unlock(registryLock[observed]);
  lockRegistry(observer);
  outgoing[observer * NREG + r] = 1;
  unlock(registryLock[observer]);
  releaseSentinel(r)
}

/* ObservationRegistry.deinit of object o's registry. */
inline registryDeinit(o) {
  lockRegistry(o);
  i = 0;
  do
  :: i < NREG ->
    if :: incoming[o * NREG + i] -> movedIn[i] = 1; incoming[o * NREG + i] = 0 :: else -> skip fi;
    if :: outgoing[o * NREG + i] -> movedOut[i] = 1; outgoing[o * NREG + i] = 0 :: else -> skip fi;
    i++
  :: else -> break
  od;
  unlock(registryLock[o]);
  i = 0;
  do
  :: i < NREG ->
    if  /* ObservedSentinel.observedObjectIsDeallocating() */
    :: movedIn[i] -> end(i, OBSERVED_DEALLOCATED)
    :: else -> skip
    fi;
    i++
  :: else -> break
  od;
  i = 0;
  do
  :: i < NREG ->
    if
    :: movedOut[i] -> end(i, OBSERVER_DEALLOCATED)
    :: else -> skip
    fi;
    i++
  :: else -> break
  od;
  storageValid[o] = 0;   /* RegistryReference.deallocate() */
  /* The moved-out sentinels, released at the end of the deinit, after every lock. */
  i = 0;
  do
  :: i < NREG ->
    if
    :: movedIn[i] -> movedIn[i] = 0; releaseSentinel(i)
    :: else -> skip
    fi;
    movedOut[i] = 0;
    i++
  :: else -> break
  od
}

/* Releasing a strong reference to object o: the last one runs its deinit here, then destroys its
 * stored properties, which releases its registry (ObservationRegistry.deinit). */
inline releaseStrong(o) {
  atomic {   /* the decrement to zero marks the object deiniting, in the same step */
    assert(strong[o] > 0);
    strong[o]--;
    last = (strong[o] == 0);
    if :: last -> objectState[o] = DEINIT :: else -> skip fi
  }
  if
  :: last ->
    /* The deinit body: X may register an observation of itself here (registration from inside a
     * deinit); its registry is still alive. */
    if
    :: o == X && !attached[2] -> register(2, X, X)
    :: true -> skip
    fi;
    atomic { registryCount[o]--; last = (registryCount[o] == 0) };
    if
    :: last -> registryDeinit(o)
    :: else -> skip   /* only the planted BUG_COUNTED_REGISTRY holds another reference */
    fi;
    atomic {
      objectState[o] = DONE;
      if :: unowned[o] == 0 -> objectState[o] = FREED :: else -> skip fi
    }
  :: else -> skip
  fi
}

/* ObservationRegistry.didPerformAutomaticChange, then HandlerSentinel.didSet, for one registration
 * of a set's snapshot; the handler may cancel a registration and releases the observer it was
 * given. `sampled` records whether cancel() had returned when the delivery began. */
inline deliver(r) {
  assert(sentinelAllocated[r]);   /* the snapshot holds the sentinel */
  sampled = cancelReturned[r];
#ifndef BUG_CHECK_AFTER_HANDLER
  if
  :: life[r] == ACTIVE ->   /* KeyValueObservation.isActive, an atomic load */
#else
  if
  :: true ->
#endif
#ifndef BUG_NO_PROMOTION
    tryRetain(observerOf[r], retained);
#else
    atomic {
      assert(objectState[observerOf[r]] != FREED);
      retained = (objectState[observerOf[r]] == ALIVE)
    };
#endif
    if
    :: retained ->
      /* The handler begins: never after cancel() returned, never with a deallocating observer. */
      assert(!sampled);
      assert(objectState[observerOf[r]] == ALIVE);
#ifdef BUG_CHECK_AFTER_HANDLER
      if :: life[r] != ACTIVE -> skip :: else -> skip fi;
#endif
      if   /* the handler: does nothing, or cancels its own registration or another */
      :: skip
      :: other = 0; cancel(other)
      :: other = 1; cancel(other)
      :: other = 3; cancel(other)
      fi;
#ifndef BUG_NO_PROMOTION
      releaseStrong(observerOf[r])
#else
      skip
#endif
    :: else -> skip
    fi
  :: else -> skip
  fi
}

/* The owner of the last outside reference to X, or to Y, releases it. */
proctype Owner(byte o) {
  SCRATCH;
  releaseStrong(o);
  finished++
}

/* A thread that holds X and sets one of its @Observed properties (Observed's setter). */
proctype Mutator() {
  SCRATCH;
  byte r;
  bit snapshot[NREG];
  /* willPerformAutomaticChange: the property's frozen list of registrations (its
   * PropertySnapshot), held under the registry lock (one more holder on its own count),
   * and it holds each of them until the last holder lets go. */
  lockRegistry(X);
  r = 0;
  do
  :: r < NREG ->
    if :: incoming[X * NREG + r] -> snapshot[r] = 1; sentinelCount[r]++ :: else -> skip fi;
    r++
  :: else -> break
  od;
  unlock(registryLock[X]);
  r = 0;
  do
  :: r < NREG ->
    if
    :: snapshot[r] ->
      deliver(r);
      snapshot[r] = 0;
      releaseSentinel(r)
    :: else -> skip
    fi;
    r++
  :: else -> break
  od;
  releaseStrong(X);
  finished++
}

/* A thread that cancels r0, r1 or r3 (KeyValueObservation.cancel(), from any thread). */
proctype Canceller() {
  SCRATCH;
  if
  :: cancel(0)
  :: cancel(1)
  :: cancel(3)
  fi;
  finished++
}

/* When every thread has finished: what must hold of every registration
 * and every object. A deadlock leaves it waiting too, which spin reports as an invalid end state. */
proctype Final() {
  byte r;
  finished == 4 ->
  r = 0;
  do
  :: r < NREG ->
    if
    :: attached[r] ->
      /* Both objects are gone, so every registration has ended, exactly once. */
      assert(life[r] != ACTIVE && teardowns[r] == 1);
      assert(!sentinelAllocated[r])
    :: else -> skip
    fi;
    r++
  :: else -> break
  od;
  assert(objectState[X] == FREED && objectState[Y] == FREED);
  assert(!storageValid[X] && !storageValid[Y])
}

init {
  SCRATCH;
  atomic {
    observedRegistry[0] = NONE; observerRegistry[0] = NONE;
    observedRegistry[1] = NONE; observerRegistry[1] = NONE;
    observedRegistry[2] = NONE; observerRegistry[2] = NONE;
    observedRegistry[3] = NONE; observerRegistry[3] = NONE;
    registryLock[X] = NONE; registryLock[Y] = NONE;
    storageValid[X] = 1; storageValid[Y] = 1;
    registryCount[X] = 1; registryCount[Y] = 1;
    strong[X] = 2;   /* the owner's reference and the mutator's */
    strong[Y] = 1;
  }
  atomic {
    register(0, Y, X);
    register(1, X, Y);
    register(3, Y, X);
    run Owner(X);
    run Owner(Y);
    run Mutator();
    run Canceller();
    run Final()
  }
}
