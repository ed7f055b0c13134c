/*
 * The protocol of a group of registrations (`RegistrationGroup`): the registrations that one
 * handle ends together, the members of `autoObserve(_:keyPaths:)` or the two directions of
 * `autoSync`. A Promela model that `spin` checks in every interleaving; `.ci/model-check` runs it
 * after lifecycle.pml (Docs/Reliability.md, "The lifecycle model").
 *
 * It models the group's protocol, not the compiled code, and stops where lifecycle.pml begins: a
 * registration's end is its lifecycle word set under its lifecycle lock (lifecycle.pml checks
 * what else that end does). Each inline names the Swift function it stands for.
 *
 * The configuration: a group of two members, m0 and m1, and its handle h. Whether members end
 * alone (several key paths) or the group ends whole (a two-way binding) is chosen at the start.
 * One thread builds the group: `makeHandle()`, then each member's registration and `add(_:)`,
 * then `complete()`; a member may end on that thread before it joins (its `.initial` call
 * cancels it), and a member is not registered once the group has ended (K7). Two threads then
 * each end one registration, the handle or a member, alone (`stopObserving(_:keyPath:)`) or not
 * (`cancel()`, either side's deallocation), or nothing. Every lifecycle lock and the group's lock
 * are one stripe, the worst case of the striped locks: nothing may take one under another.
 *
 * Checked: no deadlock; each registration tells its group of its end at most once; a thread's
 * end that ends the whole group returns only once every registration of the group has ended; and
 * once every thread is done, a group ended whole has ended all its registrations, a group whose
 * members all ended alone has ended its handle, a registration ended otherwise than alone has
 * ended the group, and no ended registration keeps its membership (the table would leak).
 *
 * Planted bugs, each of which the check must catch: -DBUG_LATE_ENDER_RETURNS_EARLY (a member's end
 * that finds the group already ending returns without ending what the group's end ended, as the
 * code once did), -DBUG_JOIN_ENDED_MEMBER (a member joins even when it has already ended, so its
 * end, which looked for no group, is never told to the group).
 */

#define NREG 3
#define M0 0
#define M1 1
#define H 2
#define NONE 255
#define ACTIVE 0
#define ENDED 1

/* KeyValueObservation: the lifecycle word, and the joined flag (`joinGroup()`). */
byte life[NREG];
bit joined[NREG];
bit registered[NREG];

/* RegistrationGroup.memberships: an entry per registration, behind its own lock. */
bit entry[NREG];
byte tableLock = NONE;

/* LifecycleLocks: one stripe for every registration and for the group. */
byte stripe = NONE;

/* RegistrationGroup.State. */
bit membersEndAlone;
bit isEnded;
bit isComplete;
bit hasHandle;
bit member[NREG];
bit endedList[NREG];

/* Ghosts. */
byte tells[NREG];      /* how many times the group heard of each registration's end */
bit endedWhole;        /* some registration ended otherwise than alone */
bit published;         /* the call returned its handle: other threads can reach the group */
byte finished;

inline lock(l) { atomic { l == NONE -> l = _pid } }
inline unlock(l) { assert(l == _pid); l = NONE }

/* State.end(): the group ends; `ending` gets what is still to end, which `ended` keeps. */
inline groupEnd() {
  isEnded = 1;
  for (i : 0 .. NREG - 1) {
    if
    :: member[i] || (i == H && hasHandle) -> ending[i] = 1; endedList[i] = 1
    :: else -> skip
    fi;
    member[i] = 0
  }
  hasHandle = 0
}

/* KeyValueObservation.end(_:alone:endedByGroup:) with endedByGroup: the group's own end of `r`,
 * which forgets its membership and tells the group nothing. */
inline endByGroup(r) {
  lock(stripe);
  if
  :: life[r] == ACTIVE -> life[r] = ENDED; grouped = joined[r]
  :: else -> grouped = 0
  fi;
  unlock(stripe);
  if
  :: grouped ->
    lock(tableLock); entry[r] = 0; unlock(tableLock)
  :: else -> skip
  fi
}

/* RegistrationGroup.memberDidEnd(_:alone:): decides, under the group's lock, what else ends, and
 * ends it after unlocking. */
inline memberDidEnd(r, alone) {
  for (i : 0 .. NREG - 1) { ending[i] = 0 }
  lock(stripe);
  tells[r]++;
  if
  :: isEnded ->
#ifndef BUG_LATE_ENDER_RETURNS_EARLY
    for (i : 0 .. NREG - 1) { ending[i] = endedList[i] }
#else
    skip
#endif
  :: else ->
    if
    :: alone && membersEndAlone && r != H ->
      member[r] = 0;
      if
      :: isComplete && !member[M0] && !member[M1] -> groupEnd()
      :: else -> skip
      fi
    :: else -> groupEnd()
    fi
  fi;
  unlock(stripe);
  for (i : 0 .. NREG - 1) {
    if
    :: ending[i] && i != r -> endByGroup(i)
    :: else -> skip
    fi
  }
}

/* KeyValueObservation.end(_:alone:) from outside the group: sets the word under the lock, reads
 * the joined flag there, and, having ended it, tells the group through the memberships table. */
inline endTop(r, alone, didEnd) {
  lock(stripe);
  if
  :: life[r] == ACTIVE -> life[r] = ENDED; didEnd = 1; grouped = joined[r]
  :: else -> didEnd = 0; grouped = 0
  fi;
  unlock(stripe);
  if
  :: didEnd && !alone -> endedWhole = 1
  :: else -> skip
  fi;
  if
  :: grouped ->
    lock(tableLock); found = entry[r]; entry[r] = 0; unlock(tableLock);
    if
    :: found -> memberDidEnd(r, alone)
    :: else -> skip
    fi
  :: else -> skip
  fi
}

/* KeyValueObservation.joinGroup(). */
inline joinGroup(r, ok) {
  lock(stripe);
#ifndef BUG_JOIN_ENDED_MEMBER
  if
  :: life[r] == ACTIVE -> joined[r] = 1; ok = 1
  :: else -> ok = 0
  fi;
#else
  joined[r] = 1; ok = 1;
#endif
  unlock(stripe)
}

/* RegistrationGroup.add(_:): enters the membership, then joins; a member that ended before it
 * joined is told to the group here. */
inline add(m) {
  lock(tableLock); entry[m] = 1; unlock(tableLock);
  joinGroup(m, ok);
  if
  :: !ok ->
    lock(tableLock); found = entry[m]; entry[m] = 0; unlock(tableLock);
    if
    :: found -> memberDidEnd(m, 0)
    :: else -> skip
    fi
  :: else ->
    lock(stripe);
    endsMember = isEnded;
    if
    :: !isEnded -> member[m] = 1
    :: else -> skip
    fi;
    unlock(stripe);
    if
    :: endsMember -> endByGroup(m)
    :: else -> skip
    fi
  fi
}

/* registerGroupedKeyPaths / autoSync: the thread that makes the group. */
proctype Builder() {
  byte i, m; bit ok, found, grouped, endsMember, didEnd, stop;
  bit ending[NREG];
  /* makeHandle() */
  registered[H] = 1;
  lock(stripe); hasHandle = 1; unlock(stripe);
  lock(tableLock); entry[H] = 1; unlock(tableLock);
  joinGroup(H, ok);
  assert(ok);
  for (m : M0 .. M1) {
    /* Ended inside an earlier member's `.initial` call: the others are not registered. */
    lock(stripe); stop = isEnded; unlock(stripe);
    if
    :: stop -> break
    :: else -> skip
    fi;
    registered[m] = 1;
    /* The member's own `.initial` call may cancel it, before it joins. */
    if
    :: 1 -> endTop(m, 0, didEnd)
    :: skip
    fi;
    add(m)
  }
  /* complete() */
  for (i : 0 .. NREG - 1) { ending[i] = 0 }
  lock(stripe);
  isComplete = 1;
  if
  :: !isEnded && !member[M0] && !member[M1] -> groupEnd()
  :: else -> skip
  fi;
  unlock(stripe);
  for (i : 0 .. NREG - 1) {
    if
    :: ending[i] -> endByGroup(i)
    :: else -> skip
    fi
  }
  published = 1;
  finished++
}

/* A thread that ends one registration of the published group: `cancel()`, a side's deallocation,
 * or `stopObserving(_:keyPath:)` (alone); or nothing. */
proctype Ender() {
  byte i, r; bit alone, found, grouped, didEnd;
  bit ending[NREG];
  published;
  if
  :: r = M0
  :: r = M1
  :: r = H
  fi;
  if
  :: alone = 0
  :: alone = 1
  fi;
  if
  :: registered[r] ->
    endTop(r, alone, didEnd);
    /* An end that ended the group returns only once every registration has ended. */
    if
    :: didEnd && !alone ->
      for (i : 0 .. NREG - 1) { assert(!registered[i] || life[i] == ENDED) }
    :: else -> skip
    fi
  :: else -> skip
  fi;
  finished++
}

init {
  byte i;
  if
  :: membersEndAlone = 0
  :: membersEndAlone = 1
  fi;
  atomic {
    run Builder();
    run Ender();
    run Ender()
  }
  finished == 3;
  for (i : 0 .. NREG - 1) {
    assert(tells[i] <= 1);
    assert(!registered[i] || life[i] == ACTIVE || entry[i] == 0);
    assert(!isEnded || !registered[i] || life[i] == ENDED)
  }
  assert(!endedWhole || isEnded);
  assert(!(membersEndAlone && isComplete && life[M0] == ENDED
    && (!registered[M1] || life[M1] == ENDED)) || life[H] == ENDED)
}
