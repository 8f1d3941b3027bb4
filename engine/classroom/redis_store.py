"""The class store in Redis (PLAYGROUND_REDIS_URL): every process on every machine shares it.

Keys of one class (all expire with the class, CLASS_LIFETIME_S after it started):

    tp:class:<code>                 hash: key_hash, expires_at, active_until, ended, link, link_version,
                                          question_id, round, locked, revealed, live, students, version,
                                          started_by, teachers (hashes, space-separated), address, created_at
    tp:class:<code>:students        set of anonymous student ids
    tp:class:<code>:q:<qid>         hash: body (the Question as JSON), n (options), rounds, revealed
    tp:class:<code>:v:<qid>:<round> hash: student id -> option
    tp:class:<code>:view            string: the class view (engine.classroom.view's JSON), the teacher's latest
    tp:ended:<code>                 the code alone, kept CLASS_ENDED_KEPT_S longer: joining it says it ended

And of the server and its clients:

    tp:open                         sorted set: open class codes by when they end by themselves
                                    (CLASS_MAX_OPEN_PER_SERVER)
    tp:teaches:<teacher hash>       sorted set: the classes a teacher browser teaches, by start (its open ones
                                    and its latest)
    tp:started:<address>            sorted set: classes started from this address, by start (its open ones)
    tp:fail:b:<student>, tp:fail:a:<address>   sorted sets: times of wrong codes (last minute)
    tp:joins:<address>              sorted set: times of new students from this address (last minute)

Every change of a class (a teacher action, a new student, a vote) is published on the channel `tp:changed` with the
class's code as the message: each server process's events watcher (engine.classroom.events) listens there, so the
students' parked requests wake without reading Redis in turn.

What students do at once (join, vote) runs as one Lua script each: Redis runs a script alone, so
the checks (joined, current round, not locked, option exists, class not full) and the write are one
step. Teacher actions check the key in Python (hmac.compare_digest on its hash), then change the class
in a MULTI/EXEC transaction that WATCHes the class hash, retried if a vote or another change came
between. `redis` (PyPI) is imported only here.
"""
from __future__ import annotations

import math
import secrets
import time
from typing import Callable

import redis

from engine import limits
from engine.i18n import _
from engine.classroom import store as s
from engine.classroom.store import ClassState, ClassStore, Question, QuestionSummary

PREFIX = "tp:"
OPEN_KEY = PREFIX + "open"
CHANGED = PREFIX + "changed"      # pub/sub channel: the code of every class that changed (an action, a join, a vote)
GRACE_S = 60          # keys outlive the class by this much (its last summary can still be read)

# Counts the open classes among a sorted set of codes (the newest first) and forgets every other one but the
# newest (a teacher's latest class is found again even once ended). ARGV[1]: now; the class hashes are
# PREFIX .. 'class:' .. code, and `started_by` (when given) must match.
COUNT_OPEN = """
local function count_open(set, now, prefix, started_by)
  local open = 0
  for i, code in ipairs(redis.call('ZREVRANGE', set, 0, -1)) do
    local c = redis.call('HMGET', prefix .. 'class:' .. code, 'expires_at', 'ended', 'active_until', 'started_by')
    local gone = not c[1] or tonumber(c[1]) <= now
    local is_open = not gone and c[2] ~= '1' and tonumber(c[3] or c[1]) > now
    if is_open and (started_by == nil or c[4] == started_by) then
      open = open + 1
    elseif gone or (i > 1 and not is_open) then
      redis.call('ZREM', set, code)
    end
  end
  return open
end
"""

# KEYS: open set, class hash, teacher's classes, address's classes, ended code.
# ARGV: now, key_hash, expires_at, max open, ttl, code, teacher hash, address, active_until, max per teacher,
#       max per address, prefix, ended code's ttl
CREATE = COUNT_OPEN + """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 'too_many_classes' end
if count_open(KEYS[3], now, ARGV[12], ARGV[7]) >= tonumber(ARGV[10]) then return 'too_many_for_teacher' end
if count_open(KEYS[4], now, ARGV[12], nil) >= tonumber(ARGV[11]) then return 'too_many_for_address' end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[5]) == 1 then return 'exists' end
redis.call('HSET', KEYS[2], 'key_hash', ARGV[2], 'expires_at', ARGV[3], 'active_until', ARGV[9], 'ended', 0,
           'link_version', 0, 'question_id', 0, 'round', 0, 'locked', 0, 'revealed', 0, 'live', 0, 'students', 0,
           'started_by', ARGV[7], 'teachers', ARGV[7], 'address', ARGV[8], 'created_at', ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[1], ARGV[9], ARGV[6])
for _, set in ipairs({KEYS[3], KEYS[4]}) do
  redis.call('ZADD', set, ARGV[1], ARGV[6])
  redis.call('EXPIRE', set, ARGV[5])
end
redis.call('SET', KEYS[5], '1', 'EX', ARGV[13])
return 'ok'
"""

# KEYS: class hash, students set, wrong codes of the browser, of the address, new students of the address, ended
# code. ARGV: now, student, failures allowed per browser, window, max students, ttl, nonce, failures allowed per
# address, new students allowed per address, channel, code
JOIN = """
local now, window = tonumber(ARGV[1]), tonumber(ARGV[4])
for _, set in ipairs({KEYS[3], KEYS[4], KEYS[5]}) do
  redis.call('ZREMRANGEBYSCORE', set, '-inf', now - window)
end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return 'too_many_failures_browser' end
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[8]) then return 'too_many_failures_network' end
local c = redis.call('HMGET', KEYS[1], 'expires_at', 'ended', 'active_until', 'students')
if not c[1] or tonumber(c[1]) <= now then
  if redis.call('EXISTS', KEYS[6]) == 1 then return 'ended' end
  for _, set in ipairs({KEYS[3], KEYS[4]}) do
    redis.call('ZADD', set, ARGV[1], ARGV[1] .. ':' .. ARGV[7])
    redis.call('EXPIRE', set, math.ceil(window) + 1)
  end
  return 'unknown'
end
if c[2] == '1' or tonumber(c[3] or c[1]) <= now then return 'ended' end
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1 then return 'ok' end
if redis.call('ZCARD', KEYS[5]) >= tonumber(ARGV[9]) then return 'too_many_joins' end
if tonumber(c[4]) >= tonumber(ARGV[5]) then return 'full' end
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('HINCRBY', KEYS[1], 'students', 1)
redis.call('ZADD', KEYS[5], ARGV[1], ARGV[1] .. ':' .. ARGV[7])
redis.call('EXPIRE', KEYS[5], math.ceil(window) + 1)
redis.call('PUBLISH', ARGV[10], ARGV[11])
return 'ok'
"""

# KEYS: class hash, students set, question hash, votes hash. ARGV: now, student, qid, round, option, ttl, channel, code
VOTE = """
local c = redis.call('HMGET', KEYS[1], 'expires_at', 'ended', 'question_id', 'round', 'locked', 'active_until')
if not c[1] or tonumber(c[1]) <= tonumber(ARGV[1]) then return 'unknown' end
if c[2] == '1' or tonumber(c[6] or c[1]) <= tonumber(ARGV[1]) then return 'ended' end
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 then return 'not_joined' end
if c[3] == '0' then return 'no_question' end
if c[3] ~= ARGV[3] or c[4] ~= ARGV[4] then return 'not_current' end
if c[5] == '1' then return 'locked' end
local n = tonumber(redis.call('HGET', KEYS[3], 'n'))
if n == nil then return 'no_question' end
local option = tonumber(ARGV[5])
if option == nil or option < 0 or option >= n or option ~= math.floor(option) then return 'bad_option' end
redis.call('HSET', KEYS[4], ARGV[2], option)
redis.call('EXPIRE', KEYS[4], ARGV[6])
redis.call('PUBLISH', ARGV[7], ARGV[8])
return 'ok'
"""

# KEYS: class hash. ARGV: votes key prefix. Returns the class hash as a flat list, then the answered count.
STATE = """
local c = redis.call('HGETALL', KEYS[1])
local qid = redis.call('HGET', KEYS[1], 'question_id')
local answered = 0
if qid and qid ~= '0' then
  answered = redis.call('HLEN', ARGV[1] .. qid .. ':' .. redis.call('HGET', KEYS[1], 'round'))
end
table.insert(c, answered)
return c
"""


@s.guard_store_errors((redis.exceptions.ConnectionError, redis.exceptions.TimeoutError), "Redis")
class RedisStore(ClassStore):
    """The class store in the Redis database at `url` (redis://host:port/db)."""

    def __init__(self, url: str, clock: Callable[[], float] = time.time, client: redis.Redis | None = None):
        self.clock = clock
        self.r = client if client is not None else redis.Redis.from_url(url, decode_responses=True,
                                                                         socket_timeout=10,
                                                                         health_check_interval=30)
        self._create = self.r.register_script(CREATE)
        self._join = self.r.register_script(JOIN)
        self._vote = self.r.register_script(VOTE)
        self._state_script = self.r.register_script(STATE)
        self._questions: dict[tuple[str, int], Question] = {}

    def close(self) -> None:
        self.r.close()

    # --- keys and helpers ------------------------------------------------------------------

    @staticmethod
    def _k(code: str, *parts: object) -> str:
        return ":".join([PREFIX + "class", code, *map(str, parts)])

    def _ttl(self, expires_at: float) -> int:
        return max(1, math.ceil(expires_at - self.clock()) + GRACE_S)

    def _gone(self, code: str) -> ValueError:
        """A code with no class: one that ended says so (its code is kept CLASS_ENDED_KEPT_S); any other is unknown."""
        return s.ended(code) if self.r.exists(PREFIX + "ended:" + code) else s.unknown_code(code)

    def _fields(self, code: str) -> dict[str, str]:
        fields = self.r.hgetall(self._k(code))
        if not fields or float(fields["expires_at"]) <= self.clock():
            raise self._gone(code)
        return fields

    def _open(self, f: dict[str, str]) -> bool:
        return f["ended"] != "1" and float(f.get("active_until") or f["expires_at"]) > self.clock()

    @staticmethod
    def _is_teacher(key: str, f: dict[str, str]) -> bool:
        """The class key, or the credential of one of the class's teacher browsers."""
        return s.key_matches(key, f["key_hash"]) or any(s.key_matches(key, known)
                                                         for known in f.get("teachers", "").split())

    def _question(self, code: str, qid: int) -> Question:
        cached = self._questions.get((code, qid))
        if cached is None:
            body = self.r.hget(self._k(code, "q", qid), "body")
            if body is None:
                raise s.unknown_question(qid)
            cached = self._questions[(code, qid)] = Question.from_json(body)
        return cached

    def _to_state(self, code: str, f: dict[str, str], answered: int) -> ClassState:
        qid = int(f.get("question_id", 0)) or None
        return ClassState(code, f.get("link"), int(f["link_version"]), qid,
                          self._question(code, qid) if qid else None, int(f["round"]), f["locked"] == "1",
                          f["revealed"] == "1", f["live"] == "1", int(f["students"]), answered,
                          not self._open(f), float(f.get("active_until") or f["expires_at"]))

    def _teacher(self, code: str, key: str, open_only: bool = True) -> dict[str, str]:
        f = self._fields(code)
        if not self._is_teacher(key, f):
            raise s.not_teacher(code)
        if open_only and not self._open(f):
            raise s.ended(code)
        return f

    def _change(self, code: str, key: str, change: Callable[[dict[str, str], redis.client.Pipeline], None],
                open_only: bool = True, bump: bool = True) -> ClassState | None:
        """Check the credential, then apply `change(fields, pipe)` in MULTI/EXEC, watching the class hash. An action
        on an open class keeps it open CLASS_IDLE_S longer; `bump` raises the version (what polls look for)."""
        class_key = self._k(code)
        self._teacher(code, key, open_only)

        def attempt(pipe: redis.client.Pipeline) -> None:
            f = pipe.hgetall(class_key)
            if not f or float(f["expires_at"]) <= self.clock():
                raise self._gone(code)
            if open_only and not self._open(f):
                raise s.ended(code)
            pipe.multi()
            if open_only:
                until = s.active_until(self.clock(), float(f["expires_at"]))
                pipe.hset(class_key, "active_until", repr(until))
                pipe.zadd(OPEN_KEY, {code: until}, xx=True)
            change(f, pipe)
            if bump:
                pipe.hincrby(class_key, "version", 1)
                pipe.publish(CHANGED, code)

        self.r.transaction(attempt, class_key)
        return self.state(code) if bump else None

    def _counts(self, code: str, qid: int, round_: int, n: int) -> tuple[int, ...]:
        counts = [0] * n
        for option in self.r.hvals(self._k(code, "v", qid, round_)):
            counts[int(option)] += 1
        return tuple(counts)

    def _summary(self, code: str, f: dict[str, str]) -> list[QuestionSummary]:
        out = []
        for qid in range(1, int(f["question_id"]) + 1):
            question = self._question(code, qid)
            rounds = int(self.r.hget(self._k(code, "q", qid), "rounds") or 1)
            counts = [self._counts(code, qid, r, len(question.options)) for r in range(1, rounds + 1)]
            out.append(s.make_summary(qid, question, counts))
        return out

    # --- the interface --------------------------------------------------------------------

    def create_class(self, teacher: str, address: str = "") -> tuple[str, str]:
        teacher, address = s.check_teacher(teacher), s.check_address(address)
        now = self.clock()
        key, teacher_hash = s.new_key(), s.hash_key(teacher)
        expires_at = now + limits.CLASS_LIFETIME_S
        while True:
            code = s.new_code()
            result = self._create(
                keys=[OPEN_KEY, self._k(code), PREFIX + "teaches:" + teacher_hash, PREFIX + "started:" + address,
                      PREFIX + "ended:" + code],
                args=[repr(now), s.hash_key(key), repr(expires_at), limits.CLASS_MAX_OPEN_PER_SERVER,
                      self._ttl(expires_at), code, teacher_hash, address, repr(s.active_until(now, expires_at)),
                      limits.CLASS_OPEN_PER_TEACHER, limits.CLASS_OPEN_PER_ADDRESS, PREFIX,
                      self._ttl(expires_at) + limits.CLASS_ENDED_KEPT_S])
            if result == "too_many_classes":
                raise s.too_many_classes()
            if result == "too_many_for_teacher":
                raise s.too_many_classes_here("browser")
            if result == "too_many_for_address":
                raise s.too_many_classes_here("network")
            if result == "ok":
                return code, key

    def teacher_class(self, teacher: str) -> str | None:
        teacher = s.check_teacher(teacher)
        now = self.clock()
        for code in self.r.zrevrange(PREFIX + "teaches:" + s.hash_key(teacher), 0, -1):
            expires_at = self.r.hget(self._k(code), "expires_at")
            if expires_at is not None and float(expires_at) > now:
                return code
        return None

    def claim(self, code: str, key: str, teacher: str) -> ClassState:
        code, teacher = s.normalise_code(code), s.check_teacher(teacher)
        f = self._fields(code)
        if not s.key_matches(key, f["key_hash"]):
            raise s.not_teacher(code)
        teacher_hash, class_key = s.hash_key(teacher), self._k(code)

        def attempt(pipe: redis.client.Pipeline) -> None:
            known = (pipe.hget(class_key, "teachers") or "").split()
            if teacher_hash in known:
                return
            if len(known) >= limits.CLASS_MAX_TEACHER_DEVICES:
                raise s.too_many_devices(code)
            pipe.multi()
            pipe.hset(class_key, "teachers", " ".join([*known, teacher_hash]))
            teaches = PREFIX + "teaches:" + teacher_hash
            pipe.zadd(teaches, {code: float(f.get("created_at") or self.clock())})
            pipe.expire(teaches, self._ttl(float(f["expires_at"])))

        self.r.transaction(attempt, class_key)
        return self.state(code)

    def new_teacher_key(self, code: str, teacher: str) -> str:
        code = s.normalise_code(code)
        key = s.new_key()
        self._change(code, teacher, lambda f, pipe: pipe.hset(self._k(code), "key_hash", s.hash_key(key)), bump=False)
        return key

    def touch(self, code: str, key: str) -> None:
        code = s.normalise_code(code)
        self._change(code, key, lambda f, pipe: None, bump=False)

    def state(self, code: str) -> ClassState:
        code = s.normalise_code(code)
        flat = self._state_script(keys=[self._k(code)], args=[self._k(code, "v", "")])
        answered = int(flat.pop())
        f = dict(zip(flat[::2], flat[1::2]))
        if not f or float(f["expires_at"]) <= self.clock():
            raise self._gone(code)
        return self._to_state(code, f, answered)

    def version(self, code: str) -> int:
        code = s.normalise_code(code)
        version, expires_at, ended, until = self.r.hmget(self._k(code), "version", "expires_at", "ended",
                                                          "active_until")
        now = self.clock()
        if expires_at is None or float(expires_at) <= now:
            raise self._gone(code)
        # a class that ended by itself changed without a teacher action: its readers must see it did
        return int(version or 0) + (1 if ended != "1" and float(until or expires_at) <= now else 0)

    def pulse(self, code: str) -> s.Pulse:
        code = s.normalise_code(code)
        version, expires_at, ended, until, students, qid, round_ = self.r.hmget(
            self._k(code), "version", "expires_at", "ended", "active_until", "students", "question_id", "round")
        now = self.clock()
        if expires_at is None or float(expires_at) <= now:
            raise self._gone(code)
        answered = self.r.hlen(self._k(code, "v", qid, round_)) if qid and qid != "0" else 0
        return s.Pulse(int(version or 0) + (1 if ended != "1" and float(until or expires_at) <= now else 0),
                       int(students or 0), answered)

    tells_changes = True

    def listen(self, on_change, stop) -> None:
        """Every class change published on CHANGED, to `on_change(code)`, until `stop` is set (a lost connection is
        opened again; the watcher's own timer reads every watched class meanwhile)."""
        while not stop.is_set():
            try:
                with self.r.pubsub(ignore_subscribe_messages=True) as subscription:
                    subscription.subscribe(CHANGED)
                    while not stop.is_set():
                        message = subscription.get_message(timeout=1.0)
                        if message is not None and message.get("type") == "message":
                            on_change(message["data"])
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                stop.wait(1.0)

    def join(self, code: str, student_id: str, address: str = "") -> ClassState:
        address = s.check_address(address)
        student_id = s.check_student(student_id)
        code = s.normalise_code(code)
        now = self.clock()
        result = self._join(keys=[self._k(code), self._k(code, "students"), PREFIX + "fail:b:" + student_id,
                                  PREFIX + "fail:a:" + address, PREFIX + "joins:" + address, PREFIX + "ended:" + code],
                            args=[repr(now), student_id, limits.CLASS_JOIN_FAILURES_PER_MINUTE, s.FAILURE_WINDOW_S,
                                  limits.CLASS_MAX_STUDENTS, self._ttl(now + limits.CLASS_LIFETIME_S),
                                  secrets.token_hex(6), limits.CLASS_JOIN_FAILURES_PER_ADDRESS_PER_MINUTE,
                                  limits.CLASS_JOINS_PER_ADDRESS_PER_MINUTE, CHANGED, code])
        if result == "too_many_failures_browser":
            raise s.too_many_failures("browser")
        if result == "too_many_failures_network":
            raise s.too_many_failures("network")
        if result == "too_many_joins":
            raise s.too_many_joins()
        if result == "unknown":
            raise s.unknown_code(code)
        if result == "ended":
            raise s.ended(code)
        if result == "full":
            raise s.class_full(code)
        return self.state(code)

    def follow(self, code: str, key: str, link: str) -> ClassState:
        code, link = s.normalise_code(code), s.check_link(link)

        def change(f, pipe):
            pipe.hset(self._k(code), mapping={"link": link})
            pipe.hincrby(self._k(code), "link_version", 1)
        return self._change(code, key, change)

    def ask(self, code: str, key: str, question: Question) -> ClassState:
        code, question = s.normalise_code(code), s.check_question(question)

        def change(f, pipe):
            qid = int(f["question_id"]) + 1
            if qid > limits.CLASS_MAX_QUESTIONS:
                raise s.too_many_questions()
            qkey = self._k(code, "q", qid)
            pipe.hset(qkey, mapping={"body": question.to_json(), "n": len(question.options), "rounds": 1,
                                     "revealed": 0})
            pipe.expire(qkey, self._ttl(float(f["expires_at"])))
            pipe.hset(self._k(code), mapping={"question_id": qid, "round": 1, "locked": 0, "revealed": 0})
        return self._change(code, key, change)

    def vote(self, code: str, student_id: str, question_id: int, round: int, option: int) -> None:
        code, student_id = s.normalise_code(code), s.check_student(student_id)
        question_id, round_ = s.check_int(question_id, "question number"), s.check_int(round, "round")
        if isinstance(option, bool) or not isinstance(option, int):
            option_arg = "x"       # not a number: the script refuses it as an option that does not exist
        else:
            option_arg = str(option)
        now = self.clock()
        result = self._vote(keys=[self._k(code), self._k(code, "students"), self._k(code, "q", question_id),
                                  self._k(code, "v", question_id, round_)],
                            args=[repr(now), student_id, question_id, round_, option_arg,
                                  self._ttl(now + limits.CLASS_LIFETIME_S), CHANGED, code])
        if result == "ok":
            return
        if result == "unknown":
            raise self._gone(code)
        if result == "ended":
            raise s.ended(code)
        if result == "not_joined":
            raise s.not_joined(code)
        if result == "no_question":
            raise s.no_question()
        if result == "not_current":
            raise s.not_current(question_id, round_)
        if result == "locked":
            raise s.locked()
        raise s.bad_option(question_id, option, len(self._question(code, question_id).options))

    def my_vote(self, code: str, student_id: str, question_id: int, round: int) -> int | None:
        code, student_id = s.normalise_code(code), s.check_student(student_id)
        question_id, round_ = s.check_int(question_id, "question number"), s.check_int(round, "round")
        self._fields(code)
        found = self.r.hget(self._k(code, "v", question_id, round_), student_id)
        return None if found is None else int(found)

    def lock(self, code: str, key: str, locked: bool = True) -> ClassState:
        code = s.normalise_code(code)

        def change(f, pipe):
            if f["question_id"] == "0":
                raise s.no_question()
            if not locked and f["revealed"] == "1":
                raise ValueError(_("This round is revealed; it cannot open again. Use vote again for a new round."))
            pipe.hset(self._k(code), "locked", int(bool(locked)))
        return self._change(code, key, change)

    def reveal(self, code: str, key: str) -> ClassState:
        code = s.normalise_code(code)

        def change(f, pipe):
            if f["question_id"] == "0":
                raise s.no_question()
            pipe.hset(self._k(code), mapping={"locked": 1, "revealed": 1})
            pipe.hset(self._k(code, "q", f["question_id"]), "revealed", 1)
        return self._change(code, key, change)

    def vote_again(self, code: str, key: str) -> ClassState:
        code = s.normalise_code(code)

        def change(f, pipe):
            if f["question_id"] == "0":
                raise s.no_question()
            round_ = int(f["round"])
            if round_ >= limits.CLASS_MAX_ROUNDS:
                raise s.too_many_rounds()
            pipe.hset(self._k(code), mapping={"round": round_ + 1, "locked": 0, "revealed": 0})
            pipe.hset(self._k(code, "q", f["question_id"]), mapping={"rounds": round_ + 1, "revealed": 0})
        return self._change(code, key, change)

    def show_live(self, code: str, key: str, on: bool) -> ClassState:
        code = s.normalise_code(code)
        return self._change(code, key, lambda f, pipe: pipe.hset(self._k(code), "live", int(bool(on))))

    def counts(self, code: str, question_id: int, round: int, key: str | None = None) -> tuple[int, ...]:
        code = s.normalise_code(code)
        question_id, round_ = s.check_int(question_id, "question number"), s.check_int(round, "round")
        f = self._fields(code)
        q = self.r.hmget(self._k(code, "q", question_id), "rounds", "revealed")
        found = q[0] is not None
        if key is not None:
            if not self._is_teacher(key, f):
                raise s.not_teacher(code)
        elif not found or q[1] != "1":
            raise s.hidden_counts()
        if not found:
            raise s.unknown_question(question_id)
        if not 1 <= round_ <= int(q[0]):
            raise s.unknown_round(question_id, round_)
        question = self._question(code, question_id)
        return self._counts(code, question_id, round_, len(question.options))

    def summary(self, code: str, key: str) -> list[QuestionSummary]:
        code = s.normalise_code(code)
        return self._summary(code, self._teacher(code, key, open_only=False))

    def end(self, code: str, key: str) -> list[QuestionSummary]:
        code = s.normalise_code(code)

        def change(f, pipe):
            pipe.hset(self._k(code), mapping={"ended": 1, "locked": 1})
            pipe.zrem(OPEN_KEY, code)
        self._change(code, key, change, open_only=False)
        return self._summary(code, self._fields(code))

    # --- the class view (engine.classroom.view) ------------------------------------------------------

    def put_view(self, code: str, key: str, view: str) -> None:
        code, view = s.normalise_code(code), s.check_view(view)

        def change(f, pipe):
            pipe.set(self._k(code, "view"), view, ex=self._ttl(float(f["expires_at"])))
        self._change(code, key, change)     # the view and the version move together (MULTI/EXEC)

    def view(self, code: str) -> str | None:
        code = s.normalise_code(code)
        found = self.r.get(self._k(code, "view"))
        if found is None:
            self._fields(code)                           # an unknown or ended code says so
        return found
