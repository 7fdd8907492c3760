#include "gc/eligible_tally.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace awc::gc {
namespace {

bool Older(const EligibleTally::Object& a, const EligibleTally::Object& b) {
  return std::tie(a.touched_us, a.digest) < std::tie(b.touched_us, b.digest);
}

}  // namespace

void EligibleTally::Offer(Object object) {
  ++count_;
  bytes_ += object.size;
  if (keep_ == 0) return;
  if (heap_.size() < keep_) {
    heap_.push_back(std::move(object));
    std::push_heap(heap_.begin(), heap_.end(), Older);
    return;
  }
  if (!Older(object, heap_.front())) return;
  std::pop_heap(heap_.begin(), heap_.end(), Older);
  heap_.back() = std::move(object);
  std::push_heap(heap_.begin(), heap_.end(), Older);
}

std::vector<EligibleTally::Object> EligibleTally::TakeOldest() {
  std::sort_heap(heap_.begin(), heap_.end(), Older);
  return std::exchange(heap_, {});
}

}  // namespace awc::gc
