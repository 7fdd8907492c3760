// What a GC plan keeps of the tenant's eligible objects as they stream in
// from the database: how many there are, their bytes, and the oldest
// `keep` of them in deletion order (oldest touch first, then digest).
//
// Contract: memory is O(keep) however many objects are offered; the
// result does not depend on the order in which they are offered; an
// object's place is decided by (touched, digest), the order the plan's
// candidates get their `seq` in (gc_sql.h, kRecordPlan).
#ifndef AWC_GC_ELIGIBLE_TALLY_H_
#define AWC_GC_ELIGIBLE_TALLY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace awc::gc {

class EligibleTally {
 public:
  struct Object {
    int64_t touched_us = 0;  // greatest(created_at, last_seen_at), in µs
    std::string digest;
    uint64_t size = 0;
  };

  explicit EligibleTally(size_t keep) : keep_(keep) {}

  void Offer(Object object);

  int64_t count() const { return count_; }
  uint64_t bytes() const { return bytes_; }
  // The oldest `keep` objects, oldest first. Leaves the tally empty.
  std::vector<Object> TakeOldest();

 private:
  size_t keep_;
  int64_t count_ = 0;
  uint64_t bytes_ = 0;
  std::vector<Object> heap_;  // max-heap: the newest kept object on top
};

}  // namespace awc::gc

#endif  // AWC_GC_ELIGIBLE_TALLY_H_
