// The trace in Perfetto's own protobuf format (a `Trace` of `TracePacket`s carrying `TrackEvent`s,
// https://perfetto.dev/docs/reference/synthetic-track-event), which ui.perfetto.dev and
// trace_processor load natively at any size, at a few dozen bytes per event instead of Chrome
// JSON's several hundred. Written by the small protobuf encoder below (varints, fixed64,
// length-delimited fields; protobuf's wire format), with no protobuf library.
//
// The layout, field numbers as in Perfetto's protos/perfetto/trace (docs/perfetto_trace.proto
// restates the subset used):
//   - every packet is on sequence 1 (trusted_packet_sequence_id); the first packet of a file
//     clears the sequence's incremental state, the others that use interned names need it;
//   - a process (pid) is a TrackDescriptor with a ProcessDescriptor; a track (pid, tid) is a
//     TrackDescriptor under it, ordered by its sort index; a counter (pid, name) is a
//     TrackDescriptor with a CounterDescriptor whose unit_name is the sample's series ("GB/s");
//   - a slice is a SLICE_BEGIN and a SLICE_END TrackEvent; its name, category and argument names
//     are interned (InternedData: event_names, event_categories, debug_annotation_names) the first
//     time they are used, arguments are DebugAnnotations;
//   - a flow arrow's ends are INSTANT events named "flow" with flow_ids / terminating_flow_ids;
//   - a counter sample is a COUNTER TrackEvent with double_counter_value.
// Timestamps are Perfetto's nanoseconds: simulated picoseconds / 1000, rounded down.
//
// The file is written as PATH.partial and renamed to PATH when complete; past `maxBytes` it goes
// on in PATH.1.pftrace, ... each a trace of its own (descriptors restated, names interned again).

#include <fcntl.h>
#include <unistd.h>

#include <pthread.h>
#include <signal.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "runtime/trace/output_file.h"
#include "runtime/trace/trace_sink.h"

namespace ascendsim::runtime {
namespace {

// --- A protobuf encoder: fields appended to a string ------------------------------------------

enum Wire : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

class Proto {
 public:
  void varint(uint32_t field, uint64_t value) {
    key(field, kVarint);
    raw(value);
  }
  // int32/int64 fields: two's complement, so a negative value takes ten bytes (protobuf's rule).
  void signedVarint(uint32_t field, int64_t value) { varint(field, static_cast<uint64_t>(value)); }
  void fixed64(uint32_t field, uint64_t value) {
    key(field, kFixed64);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  void real(uint32_t field, double value) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    fixed64(field, bits);
  }
  void bytes(uint32_t field, const std::string& data) {
    key(field, kLengthDelimited);
    raw(data.size());
    out_ += data;
  }
  void message(uint32_t field, const Proto& body) { bytes(field, body.out_); }
  const std::string& data() const { return out_; }
  bool empty() const { return out_.empty(); }
  void clear() { out_.clear(); }

 private:
  void key(uint32_t field, Wire wire) { raw((uint64_t{field} << 3) | wire); }
  void raw(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
};

// Writes fields straight into memory the caller sized (upper bounds below): one pass,
// no intermediate strings. A nested message reserves one byte for its length and moves its body
// up in the rare case it needs more, so every length is the shortest varint, as Proto writes it.
class Writer {
 public:
  explicit Writer(char* at) : p_(at) {}
  char* at() const { return p_; }
  void raw(uint64_t v) {
    while (v >= 0x80) {
      *p_++ = static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    *p_++ = static_cast<char>(v);
  }
  void varint(uint32_t field, uint64_t value) {
    raw((uint64_t{field} << 3) | kVarint);
    raw(value);
  }
  void signedVarint(uint32_t field, int64_t value) { varint(field, static_cast<uint64_t>(value)); }
  void fixed64(uint32_t field, uint64_t value) {
    raw((uint64_t{field} << 3) | kFixed64);
    for (int i = 0; i < 8; ++i) *p_++ = static_cast<char>((value >> (8 * i)) & 0xff);
  }
  void real(uint32_t field, double value) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    fixed64(field, bits);
  }
  void bytes(uint32_t field, const char* data, size_t n) {
    raw((uint64_t{field} << 3) | kLengthDelimited);
    raw(n);
    std::memcpy(p_, data, n);
    p_ += n;
  }
  // A nested message: begin() before its fields, end() after them.
  char* begin(uint32_t field) {
    raw((uint64_t{field} << 3) | kLengthDelimited);
    return p_++;
  }
  void end(char* length) {
    const uint64_t n = static_cast<uint64_t>(p_ - length - 1);
    if (n < 0x80) {
      *length = static_cast<char>(n);
      return;
    }
    size_t extra = 0;
    for (uint64_t v = n >> 7; v > 0; v >>= 7) ++extra;
    std::memmove(length + 1 + extra, length + 1, n);
    Writer head(length);
    head.raw(n);
    p_ += extra;
  }

 private:
  char* p_;
};

// Upper bounds of what Writer writes, for sizing: a field's key and its value or length take at
// most 20 bytes; a packet's own fields and its TrackEvent's fixed fields, at most 12 fields; an
// InternedData entry beside its text, 3; an argument beside its key and text, 4 and the entry
// that interns its key.
constexpr size_t kFieldBound = 20;
constexpr size_t kPacketBound = 12 * kFieldBound;
constexpr size_t kInternBound = 3 * kFieldBound;
constexpr size_t kArgBound = 4 * kFieldBound + kInternBound;

// Field numbers (protos/perfetto/trace/trace.proto, trace_packet.proto, interned_data/,
// track_event/track_event.proto, track_descriptor.proto, process_descriptor.proto,
// counter_descriptor.proto, debug_annotation.proto).
namespace f {
constexpr uint32_t kTracePacket = 1;  // Trace.packet
// TracePacket
constexpr uint32_t kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kInternedData = 12,
                   kSequenceFlags = 13, kTrackDescriptor = 60;
constexpr uint64_t kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;
// TrackEvent
constexpr uint32_t kCategoryIids = 3, kDebugAnnotations = 4, kType = 9, kNameIid = 10,
                   kTrackUuid = 11, kDoubleCounterValue = 44, kFlowIds = 47,
                   kTerminatingFlowIds = 48;
constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4;
// InternedData and its EventCategory / EventName / DebugAnnotationName {iid = 1, name = 2}
constexpr uint32_t kEventCategories = 1, kEventNames = 2, kDebugAnnotationNames = 3, kIid = 1,
                   kInternedName = 2;
// TrackDescriptor
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kParentUuid = 5, kCounterDesc = 8,
                   kChildOrdering = 11, kSiblingOrderRank = 12;
constexpr uint64_t kOrderingExplicit = 3;
// ProcessDescriptor
constexpr uint32_t kPid = 1, kProcessName = 6;
// CounterDescriptor
constexpr uint32_t kUnitName = 6;
// DebugAnnotation
constexpr uint32_t kAnnotationNameIid = 1, kUintValue = 3, kIntValue = 4, kDoubleValue = 5,
                   kStringValue = 6;
}  // namespace f

constexpr size_t kBufferSize = 1 << 20;  // never reallocated: a signal handler may write it out
constexpr size_t kFlushAt = 1 << 16;

class PerfettoTraceSink : public TraceSink {
 public:
  PerfettoTraceSink() : buffer_(kBufferSize) {}
  ~PerfettoTraceSink() override { close(); }
  PerfettoTraceSink(const PerfettoTraceSink&) = delete;
  PerfettoTraceSink& operator=(const PerfettoTraceSink&) = delete;

  bool open(const std::string& path, std::string& why, uint64_t maxBytes) override {
    close();
    if (outputTarget(path, why) != OutputTarget::File) {
      if (why.empty()) why = "'" + path + "' is a device; the trace is written to a regular file";
      return false;
    }
    if (path.size() + 32 > sizeof finalPath_) {
      why = "the trace path is too long";
      return false;
    }
    path_ = path;
    maxBytes_ = maxBytes;
    part_ = 0;
    failed_ = 0;
    reported_ = false;
    events_ = 0;
    descriptors_.clear();
    processes_.clear();
    tracks_.clear();
    counters_.clear();
    nextUuid_ = 1;
    return openPart(why);
  }
  bool isOpen() const override { return fd_ >= 0; }
  const std::string& path() const override { return path_; }

  bool close() override {
    if (fd_ >= 0) finishPart();
    if (failed_ == 0) return true;
    if (!reported_) {
      std::fprintf(stderr, "ascendsim: the trace could not be written to %s: %s; it was removed\n",
                   finalPath_, std::strerror(failed_));
      reported_ = true;
    }
    return false;
  }

  void closeFromSignal() override {
    for (long spin = 0; busy_.load() && spin < 200000000; ++spin) {
    }
    if (fd_ < 0) return;
    const int fd = fd_;
    fd_ = -1;
    if (failed_ != 0 || !writeAll(fd, buffer_.data(), used_.load())) {
      ::unlink(partialPath_);
      return;
    }
    ::rename(partialPath_, finalPath_);
  }

  void processName(int pid, const std::string& name, int sortIndex) override {
    Proto process;
    process.signedVarint(f::kPid, pid);
    process.bytes(f::kProcessName, name);
    Proto track;
    track.varint(f::kUuid, processUuid(pid, false));
    track.message(f::kProcess, process);
    track.varint(f::kChildOrdering, f::kOrderingExplicit);
    track.signedVarint(f::kSiblingOrderRank, sortIndex);
    describe(track);
  }
  void threadName(int pid, int tid, const std::string& name, int sortIndex) override {
    describeTrack(pid, tid, name, sortIndex);
  }
  void complete(int pid, int tid, const std::string& name, const char* category,
                spec::Picoseconds start, spec::Picoseconds duration,
                const TraceArgs& args) override {
    if (fd_ < 0) return;
    const uint64_t track = trackUuid(pid, tid);
    const size_t categoryLength = std::strlen(category);
    size_t bound = 2 * kPacketBound + 2 * kInternBound + name.size() + categoryLength;
    for (const TraceArg& a : args) bound += kArgBound + a.key.size() + a.text.size();
    emit(bound, [&](char* at) {
      interned_.clear();
      Writer w(at);
      OpenEvent packet = openEvent(w, start);
      w.varint(f::kType, f::kSliceBegin);
      w.varint(f::kTrackUuid, track);
      w.varint(f::kNameIid, intern(names_, name.data(), name.size(), f::kEventNames));
      w.varint(f::kCategoryIids,
               intern(categories_, category, categoryLength, f::kEventCategories));
      for (const TraceArg& a : args) {
        char* annotation = w.begin(f::kDebugAnnotations);
        w.varint(f::kAnnotationNameIid,
                 intern(argNames_, a.key.data(), a.key.size(), f::kDebugAnnotationNames));
        switch (a.kind) {
          case TraceArg::Kind::Unsigned: w.varint(f::kUintValue, a.unsignedValue); break;
          case TraceArg::Kind::Signed: w.signedVarint(f::kIntValue, a.signedValue); break;
          case TraceArg::Kind::Real: w.real(f::kDoubleValue, a.realValue); break;
          case TraceArg::Kind::Text:
          case TraceArg::Kind::Json: w.bytes(f::kStringValue, a.text.data(), a.text.size()); break;
        }
        w.end(annotation);
      }
      closeEvent(w, packet, true);
      packet = openEvent(w, start + duration);
      w.varint(f::kType, f::kSliceEnd);
      w.varint(f::kTrackUuid, track);
      closeEvent(w, packet, false);
      return w.at();
    });
    ++events_;
  }
  void flowStart(int pid, int tid, uint64_t id, spec::Picoseconds at) override {
    flow(pid, tid, id, at, f::kFlowIds);
  }
  void flowEnd(int pid, int tid, uint64_t id, spec::Picoseconds at) override {
    flow(pid, tid, id, at, f::kTerminatingFlowIds);
  }
  void counter(int pid, const std::string& name, spec::Picoseconds at, const std::string& series,
               double value) override {
    if (fd_ < 0) return;
    const uint64_t track = counterUuid(pid, name, series);
    emit(kPacketBound, [&](char* start) {
      Writer w(start);
      OpenEvent packet = openEvent(w, at);
      w.varint(f::kType, f::kCounter);
      w.varint(f::kTrackUuid, track);
      w.real(f::kDoubleCounterValue, value);
      closeEvent(w, packet, false);
      return w.at();
    });
    ++events_;
  }
  uint64_t events() const override { return events_; }

 private:
  // Names interned so far, with a small cache of the latest in front of the hash map: most events
  // reuse a handful of names, and a cached one is found with one comparison, without hashing.
  struct InternTable {
    std::unordered_map<std::string, uint64_t> ids;
    struct Recent {
      std::string text;
      uint64_t iid = 0;  // 0: empty
    };
    std::array<Recent, 64> recent;
    void clear() {
      ids.clear();
      for (Recent& r : recent) r.iid = 0;
    }
    static size_t slot(const char* text, size_t n) {
      uint64_t head = 0, tail = 0;
      if (n >= 8) {
        std::memcpy(&head, text, 8);
        std::memcpy(&tail, text + n - 8, 8);
      } else {
        for (size_t i = 0; i < n; ++i) head = (head << 8) | static_cast<unsigned char>(text[i]);
      }
      uint64_t h = (head * 0x9e3779b97f4a7c15ull) ^ (tail * 0xc2b2ae3d27d4eb4full) ^ n;
      h ^= h >> 29;
      h *= 0xbf58476d1ce4e5b9ull;
      return static_cast<size_t>(h >> 58);  // 0 .. 63
    }
  };

  // The iid of `text` in `table`; the first use adds it to this packet's InternedData (interned_).
  uint64_t intern(InternTable& table, const char* text, size_t n, uint32_t field) {
    InternTable::Recent& recent = table.recent[InternTable::slot(text, n)];
    if (recent.iid != 0 && recent.text.size() == n && std::memcmp(recent.text.data(), text, n) == 0)
      return recent.iid;
    recent.text.assign(text, n);
    if (auto known = table.ids.find(recent.text); known != table.ids.end()) {
      recent.iid = known->second;
      return recent.iid;
    }
    recent.iid = table.ids.size() + 1;
    table.ids.emplace(recent.text, recent.iid);
    Proto entry;
    entry.varint(f::kIid, recent.iid);
    entry.bytes(f::kInternedName, recent.text);
    interned_.message(field, entry);
    return recent.iid;
  }

  void flow(int pid, int tid, uint64_t id, spec::Picoseconds at, uint32_t field) {
    if (fd_ < 0) return;
    const uint64_t track = trackUuid(pid, tid);
    emit(kPacketBound + kInternBound + 4, [&](char* start) {
      interned_.clear();
      Writer w(start);
      OpenEvent packet = openEvent(w, at);
      w.varint(f::kType, f::kInstant);
      w.varint(f::kTrackUuid, track);
      w.varint(f::kNameIid, intern(names_, "flow", 4, f::kEventNames));
      w.fixed64(field, id);
      closeEvent(w, packet, true);
      return w.at();
    });
    ++events_;
  }

  // An event's packet: Trace.packet { timestamp, trusted_packet_sequence_id, track_event {...},
  // interned_data (the names this event is the first to use), sequence_flags }. openEvent() opens
  // the packet and its TrackEvent, closeEvent() closes both.
  struct OpenEvent {
    char* packet;      // the packet's length byte
    char* trackEvent;  // its TrackEvent's
  };
  static OpenEvent openEvent(Writer& w, spec::Picoseconds at) {
    char* packet = w.begin(f::kTracePacket);
    w.varint(f::kTimestamp, static_cast<uint64_t>(at < 0 ? 0 : at / 1000));
    w.varint(f::kSequenceId, 1);
    return {packet, w.begin(f::kTrackEvent)};
  }
  void closeEvent(Writer& w, const OpenEvent& open, bool withInterned) {
    w.end(open.trackEvent);
    if (withInterned && !interned_.empty())
      w.bytes(f::kInternedData, interned_.data().data(), interned_.data().size());
    w.varint(f::kSequenceFlags, f::kNeedsIncrementalState);
    w.end(open.packet);
  }

  // Writes one event's packets, `encode(at)` writing them at `at` and returning their end, in at
  // most `bound` bytes: straight into the buffer (bytes past used_ are not the file's until used_
  // moves past them, so a signal handler never writes a half-written packet). Past the size limit
  // the next file is started and the event encoded again, its names interned again there; a
  // slice's begin and end stay in one file.
  template <class Encode>
  void emit(size_t bound, const Encode& encode) {
    for (int attempt = 0; attempt < 2 && fd_ >= 0; ++attempt) {
      const bool large = bound > kBufferSize;  // one huge argument: straight to the file
      if (!large && used_ + bound > kBufferSize) flush();
      if (fd_ < 0) return;
      if (large && large_.size() < bound) large_.resize(bound);
      char* start = large ? large_.data() : buffer_.data() + used_.load();
      const size_t bytes = static_cast<size_t>(encode(start) - start);
      if (attempt == 0 && maxBytes_ > 0 && written_ + used_ + bytes > maxBytes_ &&
          eventsInPart_ > 0) {
        rotate();
        continue;
      }
      if (large) {
        flush();
        if (fd_ < 0) return;
        SignalsHeld held(busy_);
        if (!writeAll(fd_, start, bytes)) return fail();
        written_ += bytes;
      } else {
        used_ += bytes;  // only now may a signal handler write these bytes
      }
      ++eventsInPart_;
      if (used_ >= kFlushAt) flush();
      return;
    }
  }

  uint64_t processUuid(int pid, bool describeIfNew) {
    auto [it, fresh] = processes_.emplace(pid, nextUuid_);
    if (fresh) {
      ++nextUuid_;
      if (describeIfNew) processName(pid, "pid " + std::to_string(pid), pid);
    }
    return it->second;
  }
  uint64_t trackUuid(int pid, int tid) {
    auto it = tracks_.find({pid, tid});
    if (it != tracks_.end()) return it->second;
    return describeTrack(pid, tid, "track " + std::to_string(tid), tid);
  }
  uint64_t describeTrack(int pid, int tid, const std::string& name, int sortIndex) {
    const uint64_t parent = processUuid(pid, true);
    auto [it, fresh] = tracks_.emplace(std::make_pair(pid, tid), nextUuid_);
    if (fresh) ++nextUuid_;
    Proto track;
    track.varint(f::kUuid, it->second);
    track.varint(f::kParentUuid, parent);
    track.bytes(f::kName, name);
    track.signedVarint(f::kSiblingOrderRank, sortIndex);
    describe(track);
    return it->second;
  }
  uint64_t counterUuid(int pid, const std::string& name, const std::string& unit) {
    const auto key = std::make_tuple(pid, name, unit);
    auto it = counters_.find(key);
    if (it != counters_.end()) return it->second;
    const uint64_t parent = processUuid(pid, true);
    const uint64_t uuid = nextUuid_++;
    counters_.emplace(key, uuid);
    Proto counter;
    if (!unit.empty()) counter.bytes(f::kUnitName, unit);
    Proto track;
    track.varint(f::kUuid, uuid);
    track.varint(f::kParentUuid, parent);
    track.bytes(f::kName, unit.empty() ? name : name + " (" + unit + ")");
    track.message(f::kCounterDesc, counter);
    describe(track);
    return uuid;
  }

  // A TrackDescriptor packet, kept to restate at the top of a continuation file.
  void describe(const Proto& track) {
    Proto packet;
    packet.varint(f::kSequenceId, 1);
    packet.message(f::kTrackDescriptor, track);
    descriptors_.push_back(packet.data());
    append(packet);
  }
  // One TracePacket as one `Trace.packet` field: a file is a Trace, packet after packet.
  void append(const Proto& packet) { appendRaw(packet.data(), true); }

  // The packet's bytes behind their `Trace.packet` key and length, straight into the buffer.
  // `rotates`: an event packet, which may start the next file past the size limit.
  void appendRaw(const std::string& body, bool rotates) {
    if (fd_ < 0) return;
    char head[16];
    size_t headBytes = 0;
    for (uint64_t v :
         {(uint64_t{f::kTracePacket} << 3) | kLengthDelimited, uint64_t{body.size()}}) {
      while (v >= 0x80) {
        head[headBytes++] = static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
      }
      head[headBytes++] = static_cast<char>(v);
    }
    const size_t bytes = headBytes + body.size();
    if (rotates && maxBytes_ > 0 && written_ + used_ + bytes > maxBytes_ && eventsInPart_ > 0) {
      rotate();
      if (fd_ < 0) return;
    }
    if (used_ + bytes > kBufferSize) flush();
    if (fd_ < 0) return;
    if (bytes > kBufferSize) {  // one huge argument: straight to the file
      SignalsHeld held(busy_);
      if (!writeAll(fd_, head, headBytes) || !writeAll(fd_, body.data(), body.size()))
        return fail();
      written_ += bytes;
    } else {
      std::memcpy(buffer_.data() + used_.load(), head, headBytes);
      std::memcpy(buffer_.data() + used_.load() + headBytes, body.data(), body.size());
      used_ += bytes;  // only now may a signal handler write these bytes
    }
    if (rotates) ++eventsInPart_;
    if (used_ >= kFlushAt) flush();
  }

  void flush() {
    if (fd_ < 0 || used_ == 0) return;
    SignalsHeld held(busy_);
    if (!writeAll(fd_, buffer_.data(), used_)) return fail();
    written_ += used_;
    used_ = 0;
  }

  void fail() {
    failed_ = errno ? errno : EIO;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::unlink(partialPath_);
  }

  std::string partPath(int part) const { return rotatedPartPath(path_, part, ".pftrace"); }

  bool openPart(std::string& why) {
    std::snprintf(partialPath_, sizeof partialPath_, "%s.partial", partPath(part_).c_str());
    std::snprintf(finalPath_, sizeof finalPath_, "%s", partPath(part_).c_str());
    fd_ = ::open(partialPath_, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      why =
          std::string("cannot write the trace to '") + partialPath_ + "': " + std::strerror(errno);
      return false;
    }
    written_ = 0;
    used_ = 0;
    eventsInPart_ = 0;
    names_.clear();
    categories_.clear();
    argNames_.clear();
    // The sequence starts afresh: interned names are given again in this file.
    Proto first;
    first.varint(f::kSequenceId, 1);
    first.varint(f::kSequenceFlags, f::kIncrementalStateCleared);
    append(first);
    for (const std::string& d : descriptors_) appendRaw(d, false);
    eventsInPart_ = 0;
    return fd_ >= 0;
  }
  bool finishPart() {
    flush();
    if (fd_ < 0) return false;
    SignalsHeld held(busy_);
    if (::fsync(fd_) != 0) {
      fail();
      return false;
    }
    ::close(fd_);
    fd_ = -1;
    if (::rename(partialPath_, finalPath_) != 0) {
      failed_ = errno;
      ::unlink(partialPath_);
      return false;
    }
    return true;
  }

  void rotate() {
    if (!finishPart()) return;
    ++part_;
    std::string why;
    if (!openPart(why)) {
      std::fprintf(stderr, "ascendsim: %s; tracing stops\n", why.c_str());
      failed_ = errno ? errno : EIO;
      return;
    }
    std::fprintf(stderr, "ascendsim: the trace reached its %llu-byte limit; it continues in %s\n",
                 static_cast<unsigned long long>(maxBytes_), finalPath_);
  }

  std::vector<char> buffer_;
  std::atomic<size_t> used_{0};    // bytes of buffer_ holding whole packets
  std::atomic<bool> busy_{false};  // a thread is writing the file
  int fd_ = -1;
  char partialPath_[4096] = {};  // fixed buffers: the signal handler reads them
  char finalPath_[4096] = {};
  int failed_ = 0;
  bool reported_ = false;
  std::string path_;
  uint64_t maxBytes_ = 0, written_ = 0, events_ = 0, eventsInPart_ = 0;
  int part_ = 0;
  std::vector<std::string> descriptors_;  // TrackDescriptor packets, restated in every file
  std::map<int, uint64_t> processes_;
  std::map<std::pair<int, int>, uint64_t> tracks_;
  std::map<std::tuple<int, std::string, std::string>, uint64_t> counters_;
  uint64_t nextUuid_ = 1;
  InternTable names_, categories_, argNames_;
  Proto interned_;           // the names an event interns, kept from event to event
  std::vector<char> large_;  // an event larger than the buffer
};

const TraceFormatRegistration kRegistered{
    {"trace-format",
     "perfetto",
     "Perfetto's protobuf trace (TracePacket/TrackEvent, interned names; tens of bytes per event): "
     "opens in ui.perfetto.dev and trace_processor at any size",
     {},
     {}},
    [] { return std::make_unique<PerfettoTraceSink>(); }};

}  // namespace
}  // namespace ascendsim::runtime
