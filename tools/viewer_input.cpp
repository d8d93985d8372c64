#include "tools/viewer_input.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace ascendsim::tools {
namespace {

using json = nlohmann::json;

// `s` as a JSON string: quotes, backslashes and control characters escaped (other bytes as they
// are; the header's dump replaces any that are not UTF-8).
void appendJsonString(std::string& out, const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += "\\u00";
      out += kHex[(c >> 4) & 0xf];
      out += kHex[c & 0xf];
    } else {
      out += c;
    }
  }
  out += '"';
}

// A number read as an id or sort index: truncated, and held within +-9e18 (converting a double
// beyond int64_t's range is undefined behaviour).
int64_t toInteger(double v) {
  constexpr double kLimit = 9e18;
  return static_cast<int64_t>(std::max(-kLimit, std::min(kLimit, v)));
}

// One argument of the event being read: its key, its value as JSON text, and the value itself
// when it is a number or a string.
struct Member {
  std::string key, text, string;
  bool isNumber = false, isString = false;
  double number = 0;
};

// The event being read: the fields the viewer uses.
struct Event {
  std::string ph, name, cat, id;
  int64_t pid = 0, tid = 0;
  double ts = 0, dur = 0;
  bool hasTs = false;
  std::vector<Member> args;
};

// The arguments of the event being read: the first `count` of a vector kept from event to event.
struct MemberRange {
  const Member* first;
  size_t count;
  const Member* begin() const { return first; }
  const Member* end() const { return first + count; }
  size_t size() const { return count; }
};

struct FlowPoint {
  double ts = 0;
  uint32_t track = 0;
};

// nlohmann's SAX interface, fed the trace token by token. `depth` counts the open arrays and
// objects; the events are the objects directly inside the top-level array, or inside the array
// under the top-level object's "traceEvents". Each event's fields are kept until its object
// closes, then it goes into the columns and is forgotten.
class TraceHandler {
 public:
  explicit TraceHandler(ViewerTrace& out) : out_(out) {}

  bool sawTrace() const { return eventsDepth_ > 0; }
  // Flow ends still waiting for their other end.
  size_t pendingFlows() const { return starts_.size() + ends_.size(); }

  bool null() { return value(Scalar::Null, 0, nullptr, nullptr); }
  bool boolean(bool b) { return value(b ? Scalar::True : Scalar::False, 0, nullptr, nullptr); }
  bool number_integer(json::number_integer_t v) {
    if (!inArgs()) return value(Scalar::Integer, static_cast<double>(v), nullptr, nullptr);
    const std::string text = std::to_string(v);
    return value(Scalar::Integer, static_cast<double>(v), nullptr, &text);
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (!inArgs()) return value(Scalar::Integer, static_cast<double>(v), nullptr, nullptr);
    const std::string text = std::to_string(v);
    return value(Scalar::Integer, static_cast<double>(v), nullptr, &text);
  }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    return value(Scalar::Float, v, nullptr, &text);
  }
  bool string(json::string_t& s) { return value(Scalar::String, 0, &s, nullptr); }
  bool binary(json::binary_t&) { return value(Scalar::Null, 0, nullptr, nullptr); }

  bool start_object(std::size_t) { return open('{'); }
  bool start_array(std::size_t) { return open('['); }
  bool end_object() { return close('}'); }
  bool end_array() { return close(']'); }

  bool key(json::string_t& k) {
    if (depth_ == 1 && topIsObject_) {
      topKey_ = k;
    } else if (inEvent_ && depth_ == eventDepth()) {
      field_ = fieldOf(k);
    } else if (inArgs() && depth_ == eventDepth() + 1) {
      // The members are kept from event to event, so their strings keep their capacity.
      if (argCount_ == event_.args.size()) event_.args.emplace_back();
      Member& m = event_.args[argCount_++];
      m.key = k;
      m.text.clear();
      m.isNumber = m.isString = false;
      m.number = 0;
    } else if (inArgs()) {
      appendComma();
      appendJsonString(nested_, k);
      nested_ += ':';
      first_.back() = true;  // the value after a key takes no comma
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) {
    errorAt_ = position;
    return false;
  }

  std::size_t errorAt() const { return errorAt_; }

  // The next part of a trace split by rotation: a document of its own (parse state anew) whose
  // events join the same tracks, counters and flows (a flow may start in one part and end in
  // the next).
  void newDocument() {
    depth_ = 0;
    topIsObject_ = false;
    topKey_.clear();
    eventsDepth_ = 0;
    eventsOpen_ = inEvent_ = inArgs_ = false;
    field_ = Field::Other;
    nested_.clear();
    first_.clear();
    argCount_ = 0;
    errorAt_ = 0;
  }

 private:
  // The event's keys the viewer reads.
  enum class Field { Other, Ph, Name, Cat, Id, Pid, Tid, Ts, Dur, Args };
  static Field fieldOf(const std::string& k) {
    static const std::pair<const char*, Field> kFields[] = {
        {"ph", Field::Ph}, {"name", Field::Name}, {"cat", Field::Cat},
        {"id", Field::Id}, {"pid", Field::Pid},   {"tid", Field::Tid},
        {"ts", Field::Ts}, {"dur", Field::Dur},   {"args", Field::Args}};
    for (const auto& [name, field] : kFields) {
      if (k == name) return field;
    }
    return Field::Other;
  }

  int eventDepth() const { return eventsDepth_ + 1; }
  bool inArgs() const { return inArgs_ && depth_ > eventDepth(); }

  void appendComma() {
    if (!first_.back()) nested_ += ',';
    first_.back() = false;
  }

  enum class Scalar { Null, True, False, Integer, Float, String };

  // Appends a scalar's JSON text (a number as the trace wrote it) to `out`.
  static void appendText(std::string& out, Scalar kind, const std::string* s,
                         const std::string* numberText) {
    switch (kind) {
      case Scalar::Null: out += "null"; break;
      case Scalar::True: out += "true"; break;
      case Scalar::False: out += "false"; break;
      case Scalar::Integer:
      case Scalar::Float: out += *numberText; break;
      case Scalar::String: appendJsonString(out, *s); break;
    }
  }

  // A scalar value: a field of the event, an argument, or part of an argument's value.
  bool value(Scalar kind, double number, const std::string* s, const std::string* numberText) {
    const bool isNumber = kind == Scalar::Integer || kind == Scalar::Float;
    if (inArgs() && depth_ == eventDepth() + 1) {
      if (argCount_ == 0) return true;
      Member& m = event_.args[argCount_ - 1];
      appendText(m.text, kind, s, numberText);
      m.isNumber = isNumber;
      m.number = number;
      if (s != nullptr) {
        m.isString = true;
        m.string = *s;
      }
    } else if (inArgs()) {
      appendComma();
      appendText(nested_, kind, s, numberText);
    } else if (inEvent_ && depth_ == eventDepth()) {
      eventField(isNumber, number, s);
    }
    return true;
  }

  void eventField(bool isNumber, double number, const std::string* s) {
    if (s != nullptr) {
      if (field_ == Field::Ph) event_.ph = *s;
      if (field_ == Field::Name) event_.name = *s;
      if (field_ == Field::Cat) event_.cat = *s;
      if (field_ == Field::Id) event_.id = "s" + *s;
    } else if (isNumber) {
      if (field_ == Field::Pid) event_.pid = toInteger(number);
      if (field_ == Field::Tid) event_.tid = toInteger(number);
      if (field_ == Field::Ts) {
        event_.ts = number;
        event_.hasTs = true;
      }
      if (field_ == Field::Dur) event_.dur = number;
      if (field_ == Field::Id) {
        char text[32];
        std::snprintf(text, sizeof text, "n%.17g", number);
        event_.id = text;
      }
    }
  }

  bool open(char bracket) {
    if (depth_ == 0) {
      topIsObject_ = bracket == '{';
      if (!topIsObject_) {
        eventsDepth_ = 1;
        eventsOpen_ = true;
      }
    } else if (depth_ == 1 && topIsObject_ && bracket == '[' && topKey_ == "traceEvents" &&
               eventsDepth_ == 0) {
      eventsDepth_ = 2;
      eventsOpen_ = true;
    } else if (eventsOpen_ && depth_ == eventsDepth_ && bracket == '{') {
      event_.ph.clear();
      event_.name.clear();
      event_.cat.clear();
      event_.id.clear();
      event_.pid = event_.tid = 0;
      event_.ts = event_.dur = 0;
      event_.hasTs = false;
      argCount_ = 0;
      field_ = Field::Other;
      inEvent_ = true;
    } else if (inEvent_ && depth_ == eventDepth() && bracket == '{' && field_ == Field::Args) {
      inArgs_ = true;
    } else if (inArgs()) {
      if (depth_ > eventDepth() + 1) appendComma();
      if (depth_ == eventDepth() + 1) nested_.clear();
      nested_ += bracket;
      first_.push_back(true);
    }
    ++depth_;
    return true;
  }

  bool close(char bracket) {
    --depth_;
    if (inArgs() && depth_ >= eventDepth() + 1) {
      nested_ += bracket;
      first_.pop_back();
      if (depth_ == eventDepth() + 1 && argCount_ > 0) event_.args[argCount_ - 1].text = nested_;
    } else if (inArgs_ && depth_ == eventDepth()) {
      inArgs_ = false;
    } else if (inEvent_ && depth_ == eventsDepth_) {
      inEvent_ = false;
      take(event_);
    } else if (eventsOpen_ && depth_ == eventsDepth_ - 1) {
      eventsOpen_ = false;
    }
    return true;
  }

  MemberRange args() const { return MemberRange{event_.args.data(), argCount_}; }

  uint32_t intern(const std::string& s) {
    const auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<uint32_t>(out_.strings.size());
    ids_.emplace(s, id);
    out_.strings.push_back(s);
    return id;
  }

  ViewerProcess& process(int64_t pid) {
    auto [it, fresh] = processIndex_.emplace(pid, out_.processes.size());
    if (fresh) out_.processes.push_back(ViewerProcess{pid, "Process " + std::to_string(pid), pid});
    return out_.processes[it->second];
  }

  uint32_t track(int64_t pid, int64_t tid) {
    process(pid);
    auto [it, fresh] = trackIndex_.emplace(std::make_pair(pid, tid), out_.tracks.size());
    if (fresh) {
      ViewerTrack t;
      t.pid = pid;
      t.tid = tid;
      t.name = "Track " + std::to_string(tid);
      t.sort = tid;
      out_.tracks.push_back(std::move(t));
    }
    return static_cast<uint32_t>(it->second);
  }

  // The first argument called `key`, or nullptr.
  const Member* arg(const char* key) const {
    for (const Member& m : args()) {
      if (m.key == key) return &m;
    }
    return nullptr;
  }

  void take(const Event& e) {
    ++out_.events;
    if (e.ph == "M") {
      metadata(e);
    } else if (e.ph == "X" && e.hasTs) {
      ViewerTrack& t = out_.tracks[track(e.pid, e.tid)];
      const uint32_t name = intern(e.name), cat = intern(e.cat);
      auto [it, fresh] = kindIndex_.emplace(std::make_pair(name, cat), out_.kinds.size());
      if (fresh) out_.kinds.emplace_back(name, cat);
      t.ts.push_back(e.ts);
      t.dur.push_back(std::max(0.0, e.dur));
      t.kind.push_back(static_cast<uint32_t>(it->second));
      t.argStart.push_back(static_cast<uint32_t>(out_.members.size()));
      t.argCount.push_back(static_cast<uint32_t>(argCount_));
      for (const Member& m : args()) {
        member_.clear();
        appendJsonString(member_, m.key);
        member_ += ':';
        member_ += m.text;
        out_.members.push_back(intern(member_));
      }
    } else if (e.ph == "C" && e.hasTs) {
      process(e.pid);
      for (const Member& m : args()) {
        if (!m.isNumber) continue;
        const auto key = std::make_tuple(e.pid, e.name, m.key);
        auto [it, fresh] = counterIndex_.emplace(key, out_.counters.size());
        if (fresh) out_.counters.push_back(ViewerCounter{e.pid, e.name, m.key, {}, {}});
        out_.counters[it->second].ts.push_back(e.ts);
        out_.counters[it->second].value.push_back(m.number);
      }
    } else if ((e.ph == "s" || e.ph == "f") && e.hasTs && !e.id.empty()) {
      flowPoint(e);
    }
  }

  void metadata(const Event& e) {
    const Member* name = arg("name");
    const Member* sort = arg("sort_index");
    if (e.name == "process_name" && name != nullptr && name->isString) {
      process(e.pid).name = name->string;
    } else if (e.name == "process_sort_index" && sort != nullptr && sort->isNumber) {
      process(e.pid).sort = toInteger(sort->number);
    } else if (e.name == "thread_name" && name != nullptr && name->isString) {
      out_.tracks[track(e.pid, e.tid)].name = name->string;
    } else if (e.name == "thread_sort_index" && sort != nullptr && sort->isNumber) {
      out_.tracks[track(e.pid, e.tid)].sort = toInteger(sort->number);
    }
  }

  // A flow's start ("s") or end ("f"), matched with its other end by category and id, whichever
  // comes first in the file.
  void flowPoint(const Event& e) {
    const bool start = e.ph == "s";
    const std::string key = e.cat + '\n' + e.id;
    const FlowPoint here{e.ts, track(e.pid, e.tid)};
    auto& mine = start ? starts_ : ends_;
    auto& theirs = start ? ends_ : starts_;
    const auto other = theirs.find(key);
    if (other == theirs.end()) {
      mine[key] = here;
      return;
    }
    const FlowPoint from = start ? here : other->second;
    const FlowPoint to = start ? other->second : here;
    out_.flows.push_back(ViewerFlow{from.ts, to.ts, from.track, to.track});
    theirs.erase(other);
  }

  ViewerTrace& out_;
  int depth_ = 0;
  bool topIsObject_ = false;
  std::string topKey_;
  int eventsDepth_ = 0;  // the depth inside the events' array once it opened (1 or 2)
  bool eventsOpen_ = false, inEvent_ = false;
  Field field_ = Field::Other;  // the event's key being read
  bool inArgs_ = false;
  std::string nested_;       // an argument whose value is an array or object, as JSON text
  std::vector<bool> first_;  // per open container of `nested_`: nothing written in it yet
  Event event_;
  size_t argCount_ = 0;  // how many of event_.args belong to this event
  std::string member_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::map<int64_t, size_t> processIndex_;
  std::map<std::pair<int64_t, int64_t>, size_t> trackIndex_;
  std::map<std::pair<uint32_t, uint32_t>, size_t> kindIndex_;
  std::map<std::tuple<int64_t, std::string, std::string>, size_t> counterIndex_;
  std::unordered_map<std::string, FlowPoint> starts_, ends_;
  std::size_t errorAt_ = 0;
};

// `v` reordered: element i of the result is v[order[i]].
template <typename T>
void reorder(std::vector<T>& v, const std::vector<size_t>& order) {
  std::vector<T> sorted;
  sorted.reserve(v.size());
  for (size_t i : order) sorted.push_back(v[i]);
  v = std::move(sorted);
}

std::vector<size_t> byTime(const std::vector<double>& ts) {
  std::vector<size_t> order(ts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ts[a] < ts[b]; });
  return order;
}

// Bytes a column of `n` values of `width` bytes takes in the block, with its alignment.
size_t columnBytes(size_t n, size_t width) {
  return (n * width + 7) / 8 * 8;
}

// Appends the bytes of `values` (little-endian) to `out` at an 8-byte boundary, then frees
// `values` (the block is what is kept); returns where they are.
template <typename T>
size_t put(std::string& out, std::vector<T>& values) {
  while (out.size() % 8 != 0) out += '\0';
  const size_t at = out.size();
  for (const T& v : values) {
    uint64_t bits = 0;
    if constexpr (sizeof(T) == 8) {
      std::memcpy(&bits, &v, 8);
    } else {
      bits = v;
    }
    for (size_t b = 0; b < sizeof(T); ++b) out += static_cast<char>((bits >> (8 * b)) & 0xff);
  }
  std::vector<T>().swap(values);
  return at;
}

}  // namespace

TraceRead readTrace(std::istream& in, uint64_t size, ViewerTrace& out) {
  return readTrace({TracePart{&in, size}}, out);
}

TraceRead readTrace(const std::vector<TracePart>& parts, ViewerTrace& out) {
  out = ViewerTrace();
  TraceHandler handler(out);
  bool whole = true;
  for (size_t i = 0; i < parts.size() && whole; ++i) {
    if (i > 0) handler.newDocument();
    whole = json::sax_parse(*parts[i].in, &handler);
    if (!handler.sawTrace()) return TraceRead::NotATrace;
    // A parse error is a cut only at the end of the input (the lexer asked for more and got
    // none); an error anywhere before it is a file that is not JSON. A cut part ends the trace.
    if (!whole && handler.errorAt() <= parts[i].size) return TraceRead::NotATrace;
  }
  for (ViewerTrack& t : out.tracks) {
    const auto order = byTime(t.ts);
    reorder(t.ts, order);
    reorder(t.dur, order);
    reorder(t.kind, order);
    reorder(t.argStart, order);
    reorder(t.argCount, order);
  }
  for (ViewerCounter& c : out.counters) {
    const auto order = byTime(c.ts);
    reorder(c.ts, order);
    reorder(c.value, order);
  }
  std::stable_sort(out.flows.begin(), out.flows.end(),
                   [](const ViewerFlow& a, const ViewerFlow& b) { return a.fromTs < b.fromTs; });
  out.unmatchedFlows = handler.pendingFlows();
  out.cutOff = !whole;
  return whole ? TraceRead::Whole : TraceRead::CutOff;
}

void viewerData(ViewerTrace& trace, std::string& header, std::string& binary) {
  size_t bytes = columnBytes(trace.members.size(), 4) + columnBytes(trace.flows.size(), 8) * 2 +
                 columnBytes(trace.flows.size(), 4) * 2;
  for (const ViewerTrack& t : trace.tracks) {
    bytes += columnBytes(t.ts.size(), 8) * 2 + columnBytes(t.ts.size(), 4) * 3;
  }
  for (const ViewerCounter& c : trace.counters) bytes += columnBytes(c.ts.size(), 8) * 2;
  binary.clear();
  binary.reserve(bytes);
  json h;
  h["events"] = trace.events;
  h["unmatchedFlows"] = trace.unmatchedFlows;
  h["cutOff"] = trace.cutOff;
  h["strings"] = trace.strings;
  std::vector<std::string>().swap(trace.strings);
  json kinds = json::array();
  for (const auto& [name, cat] : trace.kinds) kinds.push_back({name, cat});
  h["kinds"] = kinds;
  json processes = json::array();
  for (const ViewerProcess& p : trace.processes) {
    processes.push_back({{"pid", p.pid}, {"name", p.name}, {"sort", p.sort}});
  }
  h["processes"] = processes;
  json tracks = json::array();
  for (ViewerTrack& t : trace.tracks) {
    const size_t n = t.ts.size();
    tracks.push_back({{"pid", t.pid},
                      {"tid", t.tid},
                      {"name", t.name},
                      {"sort", t.sort},
                      {"n", n},
                      {"ts", put(binary, t.ts)},
                      {"dur", put(binary, t.dur)},
                      {"kind", put(binary, t.kind)},
                      {"argStart", put(binary, t.argStart)},
                      {"argCount", put(binary, t.argCount)}});
  }
  h["tracks"] = tracks;
  json counters = json::array();
  for (ViewerCounter& c : trace.counters) {
    const size_t n = c.ts.size();
    counters.push_back({{"pid", c.pid},
                        {"name", c.name},
                        {"unit", c.unit},
                        {"n", n},
                        {"ts", put(binary, c.ts)},
                        {"value", put(binary, c.value)}});
  }
  h["counters"] = counters;
  std::vector<double> fromTs, toTs;
  std::vector<uint32_t> fromTrack, toTrack;
  fromTs.reserve(trace.flows.size());
  toTs.reserve(trace.flows.size());
  fromTrack.reserve(trace.flows.size());
  toTrack.reserve(trace.flows.size());
  for (const ViewerFlow& f : trace.flows) {
    fromTs.push_back(f.fromTs);
    toTs.push_back(f.toTs);
    fromTrack.push_back(f.fromTrack);
    toTrack.push_back(f.toTrack);
  }
  const size_t flows = trace.flows.size(), members = trace.members.size();
  std::vector<ViewerFlow>().swap(trace.flows);
  h["flows"] = {{"n", flows},
                {"fromTs", put(binary, fromTs)},
                {"toTs", put(binary, toTs)},
                {"fromTrack", put(binary, fromTrack)},
                {"toTrack", put(binary, toTrack)}};
  h["members"] = {{"n", members}, {"at", put(binary, trace.members)}};
  while (binary.size() % 8 != 0) binary += '\0';
  h["bytes"] = binary.size();
  header = h.dump(-1, ' ', false, json::error_handler_t::replace);
}

void appendBase64(std::string& out, const char* data, size_t size) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16 |
                       static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8 |
                       static_cast<uint32_t>(static_cast<unsigned char>(data[i + 2]));
    out += kDigits[v >> 18];
    out += kDigits[(v >> 12) & 63];
    out += kDigits[(v >> 6) & 63];
    out += kDigits[v & 63];
  }
  if (i < size) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16;
    if (i + 1 < size) v |= static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8;
    out += kDigits[v >> 18];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < size ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
}

std::string scriptSafe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace ascendsim::tools
