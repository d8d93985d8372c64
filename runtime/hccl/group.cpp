#include "runtime/hccl/group.h"

namespace ascendsim::runtime::hccl {

std::shared_ptr<models::SyncPoint> Group::signal(const SignalKey& key) {
  std::shared_ptr<models::SyncPoint>& sp = signals_[key];
  if (!sp) sp = std::make_shared<models::SyncPoint>();
  return sp;
}

void Group::queued(uint64_t space, uint64_t seq, uint32_t parties) {
  uint32_t& count = queued_[{space, seq}];
  if (++count < parties) return;
  queued_.erase({space, seq});
  const SignalKey first{space, seq, 0, 0, 0, 0};
  const SignalKey last{space, seq, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX};
  signals_.erase(signals_.lower_bound(first), signals_.upper_bound(last));
  if (space == 0) descriptions_.erase(seq);
  pairs_.erase(pairs_.lower_bound({space, seq, 0, 0}),
               pairs_.upper_bound({space, seq, UINT32_MAX, UINT32_MAX}));
}

const std::string& Group::describe(uint64_t seq, const std::string& mine) {
  return descriptions_.emplace(seq, mine).first->second;
}

int64_t Group::pairBytes(uint64_t space, uint64_t seq, uint32_t from, uint32_t to, uint64_t bytes,
                         bool sender) {
  auto& entry = pairs_.try_emplace({space, seq, from, to}, -1, -1).first->second;
  (sender ? entry.first : entry.second) = static_cast<int64_t>(bytes);
  return sender ? entry.second : entry.first;
}

}  // namespace ascendsim::runtime::hccl
