#include "models/resource/resource.h"

#include <algorithm>
#include <cmath>

namespace ascendsim::models {

Picoseconds Resource::reserve(Picoseconds earliest, Picoseconds length, Picoseconds now,
                              int owner) {
  while (!reserved.empty() && reserved.front().end <= now) reserved.pop_front();
  if (reserved.empty() || earliest >= reserved.back().end) {  // the common case: after everything
    if (length > 0) reserved.push_back({earliest, earliest + length, owner});
    return earliest;
  }
  // Bookings are sorted and disjoint, so their ends are sorted too: skip those over before
  // `earliest`.
  auto it = std::partition_point(reserved.begin(), reserved.end(),
                                 [earliest](const Booking& b) { return b.end <= earliest; });
  Picoseconds start = earliest;
  for (; it != reserved.end(); ++it) {
    if (start + length <= it->start) break;  // fits in the gap before it
    start = std::max(start, it->end);
  }
  if (length > 0) reserved.insert(it, {start, start + length, owner});
  return start;
}

void Resource::sample(Picoseconds start, Picoseconds end, double n) {
  if (binWidth <= 0 || n == 0) return;
  if (end <= start) {
    bins[start / binWidth] += n;
    return;
  }
  // Spread the bytes evenly over the bins the interval covers.
  const double perPs = n / static_cast<double>(end - start);
  for (int64_t b = start / binWidth; b * binWidth < end; ++b) {
    const Picoseconds lo = std::max(start, b * binWidth), hi = std::min(end, (b + 1) * binWidth);
    bins[b] += perPs * static_cast<double>(hi - lo);
  }
}

Picoseconds Resource::interleave(Picoseconds earliest, Picoseconds length, Picoseconds now,
                                 int owner) {
  while (!reserved.empty() && reserved.front().end <= now) reserved.pop_front();
  if (reserved.empty() || earliest >= reserved.back().end)
    return reserve(earliest, length, now, owner);
  reserved.back().end += length;
  if (reserved.back().owner != owner) reserved.back().owner = 0;  // shared: nobody's alone
  return earliest;
}

Picoseconds transferTime(uint64_t bytes, double rate) {
  return static_cast<Picoseconds>(std::ceil(static_cast<double>(bytes) / rate * 1e12));
}

Resource& ResourceTable::add(std::string name) {
  Resource& r = items_.emplace_back();
  r.name = std::move(name);
  r.binWidth = binWidth_;
  return r;
}

void ResourceTable::sampleEvery(Picoseconds width) {
  binWidth_ = width;
  for (Resource& r : items_) r.binWidth = width;
}

std::pair<Picoseconds, Picoseconds> flow(const std::vector<Stage>& stages, Picoseconds ready,
                                         std::vector<std::pair<Picoseconds, Picoseconds>>* spans,
                                         int owner) {
  if (spans) spans->clear();
  // A run of pieces moved ahead on one of these resources gives way now, before anything books.
  for (const Stage& st : stages) {
    if (st.resource->heldBy) st.resource->heldBy->yieldAt(ready);
  }
  Picoseconds head = ready;  // when the chunk's first byte reaches the next stage
  Picoseconds tail = ready;  // when its last byte has left the previous stage
  Picoseconds firstFree = ready;
  Picoseconds previousStart = ready, previousEnd = ready;  // the stage before's work
  for (size_t i = 0; i < stages.size(); ++i) {
    const Stage& st = stages[i];
    if (st.service) {
      // Timed by its owner, burst by burst, as the bytes arrive.
      const Picoseconds from = st.alongside ? previousStart : head;
      const auto [first, last, free] =
          st.service->serve(st, from, st.alongside ? previousEnd : std::max(head, tail));
      if (spans) spans->emplace_back(from, last);
      st.resource->bytes += st.bytes;
      st.resource->busy += st.occupancy;
      st.resource->chunks++;
      st.resource->sample(from, last, static_cast<double>(st.bytes));
      if (i == 0) firstFree = free;
      if (!st.alongside) {
        previousStart = head;
        previousEnd = last;
      }
      if (!st.rateOnly) {  // a budget's bytes do not wait for it
        head = first;
        tail = last;
      }
      continue;
    }
    // Cut-through: a stage may start as soon as the head arrives, but cannot finish before the
    // tail has; store-and-forward stages wait for the whole chunk.
    const Picoseconds earliest = st.alongside    ? previousStart
                                 : st.wholeChunk ? tail
                                                 : std::max(head, tail - st.occupancy);
    Picoseconds start = earliest, end = earliest;
    if (st.parts > 1 && !st.wholeChunk && !st.interleaved && !st.rateOnly) {
      // The bytes arrive spread over [head, tail]: part k may start when its first byte is in and
      // cannot end before its last one is.
      const Picoseconds spread = std::max<Picoseconds>(0, tail - head);
      const Picoseconds part = (st.occupancy + st.parts - 1) / st.parts;
      Picoseconds done = 0;
      for (uint32_t k = 0; k < st.parts; ++k) {
        const Picoseconds in = head + spread * (k + 1) / st.parts;
        const Picoseconds at = std::max({head + spread * k / st.parts, in - part, done});
        const Picoseconds s = st.resource->reserve(at, part, ready, owner);
        if (k == 0) start = s;
        done = s + part;
      }
      end = done;
    } else {
      start = st.interleaved ? st.resource->interleave(earliest, st.occupancy, ready, owner)
                             : st.resource->reserve(earliest, st.occupancy, ready, owner);
      end = start + (st.rateOnly ? 0 : st.occupancy);
    }
    if (spans) spans->emplace_back(start, std::max(end, start + st.occupancy));
    st.resource->bytes += st.bytes;
    st.resource->busy += st.occupancy;
    st.resource->chunks++;
    st.resource->sample(start, std::max(end, start + st.occupancy), static_cast<double>(st.bytes));
    if (i == 0) firstFree = std::max(end, start + st.occupancy);
    if (st.alongside) continue;  // the piece moves on from where the stage before left it
    previousStart = start;
    previousEnd = std::max(end, start + st.occupancy);
    head = (st.wholeChunk ? end : start) + st.latency;
    tail = end + st.latency;
  }
  return {firstFree, tail};
}

}  // namespace ascendsim::models
