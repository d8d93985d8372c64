#pragma once
// The live objects behind one kind of AscendCL handle (contexts, streams, events, and the
// operator API's tensors, scalars and executors), owned here and
// found by address: a stale or made-up handle finds nothing and is refused, never used.

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ascendsim::runtime {

template <typename T>
class HandleTable {
 public:
  T* find(const void* handle) const {
    auto it = objects_.find(handle);
    return it == objects_.end() ? nullptr : it->second.get();
  }
  T& add(std::unique_ptr<T> object) {
    T& ref = *object;
    objects_[&ref] = std::move(object);
    return ref;
  }
  void erase(const T* object) { objects_.erase(object); }
  // Gives up ownership of `object` (a stale handle then finds nothing) to the caller.
  std::unique_ptr<T> take(const T* object) {
    auto it = objects_.find(object);
    if (it == objects_.end()) return nullptr;
    std::unique_ptr<T> owned = std::move(it->second);
    objects_.erase(it);
    return owned;
  }
  // Erases the object behind `handle`; false if there is none.
  bool remove(const void* handle) { return objects_.erase(handle) > 0; }
  size_t size() const { return objects_.size(); }
  void clear() { objects_.clear(); }
  // A snapshot: callers that wait (and so let other threads create and destroy objects) iterate
  // this, and check with find() that an object still lives before using it.
  std::vector<T*> all() const {
    std::vector<T*> out;
    out.reserve(objects_.size());
    for (const auto& entry : objects_) out.push_back(entry.second.get());
    return out;
  }
  template <typename Predicate>
  bool any(Predicate holds) const {
    return std::any_of(objects_.begin(), objects_.end(),
                       [&](const auto& entry) { return holds(*entry.second); });
  }

 private:
  std::unordered_map<const void*, std::unique_ptr<T>> objects_;
};

}  // namespace ascendsim::runtime
