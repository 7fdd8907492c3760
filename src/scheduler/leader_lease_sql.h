// Every SQL statement of the leader lease (awc.leader_leases): taking,
// renewing, releasing and fencing it, cutting an expiry no lease could
// have set, and the operator's read of it. See docs/scheduler.md,
// "Leadership", "Fencing" and "Clamps".
//
// Values travel only as $n parameters.
#ifndef AWC_SCHEDULER_LEADER_LEASE_SQL_H_
#define AWC_SCHEDULER_LEADER_LEASE_SQL_H_

namespace awc::scheduler::sql {

// The row of awc.leader_leases that elects the scheduler.
inline constexpr const char* kSchedulerLease = "scheduler";

// $1 name, $2 holder, $3 lease seconds. Takes the lease when it is absent
// or expired, with a new token; a row (token) when it did.
inline constexpr const char* kAcquireLease = R"sql(
INSERT INTO awc.leader_leases AS l (name, holder, token, expires_at)
VALUES ($1, $2, nextval('awc.leader_lease_token_seq'),
        now() + make_interval(secs => $3::float8))
    ON CONFLICT (name) DO UPDATE
   SET holder = excluded.holder, token = excluded.token, acquired_at = now(),
       renewed_at = now(), expires_at = excluded.expires_at
 WHERE l.expires_at <= now()
RETURNING l.token
)sql";

// $1 name, $2 holder, $3 token, $4 lease seconds. A row while the lease is
// still this holder's under this token (expired or not: nobody took it).
inline constexpr const char* kRenewLease = R"sql(
UPDATE awc.leader_leases
   SET renewed_at = now(), expires_at = now() + make_interval(secs => $4::float8)
 WHERE name = $1 AND holder = $2 AND token = $3
RETURNING 1
)sql";

// $1 name, $2 holder, $3 token. Ends the lease now, so that a standby takes
// over at its next attempt (a leader that stops).
inline constexpr const char* kReleaseLease = R"sql(
UPDATE awc.leader_leases SET expires_at = now()
 WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > now()
)sql";

// $1 name, $2 holder, $3 token. The fence, first in every transaction that
// writes for a schedule: a row while the lease is still ours. Its share lock
// makes a takeover wait for this transaction's commit; a takeover that
// committed first has changed the token, and then there is no row.
inline constexpr const char* kFence = R"sql(
SELECT 1 FROM awc.leader_leases
 WHERE name = $1 AND holder = $2 AND token = $3
   FOR SHARE
)sql";

// An expiry as ISO 8601 text in UTC with milliseconds, whatever it is
// ('infinity').
#define AWC_LEASE_TIME_TEXT(column)                                        \
  "CASE WHEN isfinite(" column ") THEN to_char(" column                    \
  " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') ELSE " column \
  "::text END"

// $1 name, $2 lease seconds. Cuts an expires_at that lies more than one
// lease length ahead of now() (written by SQL: no acquisition or renewal
// sets it so) to now() plus the lease, and changes nothing else: holder
// and token stay, so a live holder's fence still holds and its renewal
// still matches, and a takeover still needs the expiry and takes a new
// token. Like a takeover, it waits for a firing that holds the fence's
// share lock. A row when it cut: (holder, token, the old expires_at and
// the new one as text).
inline constexpr const char* kClampLease =
    R"sql(
UPDATE awc.leader_leases AS l
   SET expires_at = now() + make_interval(secs => $2::float8)
  FROM (SELECT name, expires_at FROM awc.leader_leases WHERE name = $1) AS o
 WHERE l.name = o.name
   AND l.expires_at > now() + make_interval(secs => $2::float8)
RETURNING l.holder, l.token, )sql" AWC_LEASE_TIME_TEXT("o.expires_at") R"sql(,
          )sql" AWC_LEASE_TIME_TEXT("l.expires_at") R"sql(
)sql";

#undef AWC_LEASE_TIME_TEXT

// $1 name. (holder, token, expires_at as ISO text, expired, seconds from
// now to expires_at: Infinity for 'infinity').
inline constexpr const char* kLeaseOf = R"sql(
SELECT holder, token,
       to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       expires_at <= now(),
       (extract(epoch FROM expires_at) - extract(epoch FROM now()))::float8
  FROM awc.leader_leases WHERE name = $1
)sql";

}  // namespace awc::scheduler::sql

#endif  // AWC_SCHEDULER_LEADER_LEASE_SQL_H_
