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
 * Checked: no deadlock; each registration tells its group of its end at most once; an end that
 * is not alone returns only once every registration of the group has ended, whether it ended its
 * registration or found it ended (unless that one had ended alone); and once every thread is
 * done, a group ended whole has ended all its registrations, a group whose members all ended
 * alone has ended its handle, a registration ended otherwise than alone has ended the group, and
 * no ended registration keeps its membership (the table would leak).
 *
 * Planted bugs, each of which the check must catch: -DBUG_LATE_ENDER_RETURNS_EARLY (a member's end
 * that finds the group already ending returns without ending what the group's end ended, as the
 * code once did), -DBUG_MEMBERSHIP_FORGOTTEN_FIRST (a registration's membership is removed as soon
 * as it has ended, as the code once did, so that a second end of it finds no group to wait for),
 * -DBUG_JOIN_ENDED_MEMBER (a member joins even when it has already ended, so its end, which looked
 * for no group, is never told to the group).
 */

#define NREG 3
#define M0 0
#define M1 1
#define H 2
#define NONE 255
#define ACTIVE 0
#define ENDED 1

/* KeyValueObservation: the lifecycle word, and the flags of its observer side: joined
 * (`joinGroup()`) and ended alone. */
byte life[NREG];
bit joined[NREG];
bit endedAloneFlag[NREG];
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
#ifdef BUG_MEMBERSHIP_FORGOTTEN_FIRST
  atomic { lock(tableLock); for (i : 0 .. NREG - 1) { entry[i] = 0 }; unlock(tableLock) };
#endif
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
 * which tells the group nothing; the group forgets the membership once it has ended them all. */
inline endByGroup(r) {
  lock(stripe);
  if
  :: life[r] == ACTIVE -> life[r] = ENDED
  :: else -> skip
  fi;
  unlock(stripe)
}

/* Memberships.remove(_:) of the registrations `forget` marks, under the table's lock. */
inline forgetMarked() {
  lock(tableLock);
  for (i : 0 .. NREG - 1) {
    if
    :: forget[i] -> entry[i] = 0; forget[i] = 0
    :: else -> skip
    fi
  }
  unlock(tableLock)
}

/* RegistrationGroup.endAlongside(_:except:): ends what another thread's end of the group ended. */
inline endAlongside(r) {
  for (i : 0 .. NREG - 1) {
    if
    :: ending[i] && i != r -> endByGroup(i)
    :: else -> skip
    fi
  }
}

/* RegistrationGroup.memberDidEnd(_:alone:): decides, under the group's lock, what else ends; ends
 * it after unlocking, and forgets memberships: a member's that ended alone at once, and, when the
 * group ended, every one of its registrations' once all have ended. */
inline memberDidEnd(r, alone) {
  for (i : 0 .. NREG - 1) { ending[i] = 0 }
  decision = 0;   /* 0: already ending; 1: ended alone; 2: ends the group */
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
      :: isComplete && !member[M0] && !member[M1] -> groupEnd(); decision = 2
      :: else -> decision = 1
      fi
    :: else -> groupEnd(); decision = 2
    fi
  fi;
  unlock(stripe);
  if
  :: decision == 0 -> endAlongside(r)
  :: decision == 1 -> forget[r] = 1; forgetMarked()
  :: decision == 2 ->
    endAlongside(r);
    for (i : 0 .. NREG - 1) { forget[i] = ending[i] }
    forget[r] = 1;
    forgetMarked()
  fi
}

/* KeyValueObservation.end(_:alone:) from outside the group: sets the word, and whether it ended
 * alone, under the lock, and reads the joined flag there. Having ended it, it tells the group.
 * Finding it already ended otherwise than alone, while the membership lasts, it ends the group, or
 * what the group's end ended (`RegistrationGroup.registrationWasAlreadyEnded`). */
inline endTop(r, alone, didEnd) {
  lock(stripe);
  grouped = joined[r];
  if
  :: life[r] == ACTIVE -> life[r] = ENDED; didEnd = 1; endedAloneFlag[r] = alone
  :: else -> didEnd = 0; wasAlone = endedAloneFlag[r]
  fi;
  unlock(stripe);
  if
  :: didEnd && !alone -> endedWhole = 1
  :: else -> skip
  fi;
  if
  :: grouped ->
    lock(tableLock); found = entry[r]; unlock(tableLock);
    if
    :: found && didEnd -> memberDidEnd(r, alone)
    :: found && !didEnd && !wasAlone ->
      for (i : 0 .. NREG - 1) { ending[i] = 0 }
      decision = 0;
      lock(stripe);
      if
      :: isEnded -> for (i : 0 .. NREG - 1) { ending[i] = endedList[i] }
      :: else -> groupEnd(); decision = 2
      fi;
      unlock(stripe);
      endAlongside(r);
      if
      :: decision == 2 ->
        for (i : 0 .. NREG - 1) { forget[i] = ending[i] }
        forgetMarked()
      :: else -> skip
      fi
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
 * joined is forgotten and told to the group here. */
inline add(m) {
  lock(tableLock); entry[m] = 1; unlock(tableLock);
  joinGroup(m, ok);
  if
  :: !ok ->
    forget[m] = 1; forgetMarked();
    memberDidEnd(m, 0)
  :: else ->
    lock(stripe);
    endsMember = isEnded;
    if
    :: !isEnded -> member[m] = 1
    :: else -> skip
    fi;
    unlock(stripe);
    if
    :: endsMember -> endByGroup(m); forget[m] = 1; forgetMarked()
    :: else -> skip
    fi
  fi
}

/* registerGroupedKeyPaths / autoSync: the thread that makes the group. */
proctype Builder() {
  byte i, m, decision; bit ok, found, grouped, endsMember, didEnd, stop, wasAlone;
  bit ending[NREG], forget[NREG];
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
  for (i : 0 .. NREG - 1) { forget[i] = ending[i] }
  forgetMarked();
  published = 1;
  finished++
}

/* A thread that ends one registration of the published group: `cancel()`, a side's deallocation,
 * or `stopObserving(_:keyPath:)` (alone); or nothing. */
proctype Ender() {
  byte i, r, decision; bit alone, found, grouped, didEnd, wasAlone;
  bit ending[NREG], forget[NREG];
  published;
  if
  :: r = M0
  :: r = M1
  :: r = H
  fi;
  /* `stopObserving(_:keyPath:)` finds members only: the handle has no registry. */
  if
  :: alone = 0
  :: r != H -> alone = 1
  fi;
  if
  :: registered[r] ->
    endTop(r, alone, didEnd);
    /* An end that is not alone returns only once every registration of the group has ended,
     * unless it found its registration ended alone (by `stopObserving(_:keyPath:)`). */
    if
    :: !alone && !endedAloneFlag[r] ->
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
