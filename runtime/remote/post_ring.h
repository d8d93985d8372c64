#pragma once
// A served program's thread's calls sent without waiting (Posts and Checks, protocol.h), queued in
// the job's shared memory instead of written to its socket: the program appends a message with no
// system call, and the server thread that stands for the program's thread takes the queue's
// messages before anything the socket brings (all of them were queued before anything the socket
// holds was sent: a message that must go by the socket, one too long for the queue, leaves a
// marker in the queue where it belongs). Only when the server's thread sleeps (it says so here)
// does the program wake it, with a Wake message on the socket.
//
// One writer (the program's thread) and one reader (its server thread). Positions only grow; a
// message is its length (4 bytes) and its bytes, wrapping at the end of the data. The program
// cannot harm the server through it: the server keeps its own copy of the capacity and of where it
// has read to, checks every length, and copies each message out before reading it.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ascendsim::remote {

struct PostRing {
  // The length of a marker: the thread's next message (a Post or a Check) is on the socket.
  static constexpr uint32_t kMarker = 0xFFFFFFFFu;
  // Bytes of messages a thread's queue holds; a message longer than a quarter of it goes by the
  // socket.
  static constexpr uint64_t kCapacity = 64 * 1024;
  static constexpr uint64_t kLongest = kCapacity / 4;

  std::atomic<uint64_t> tail{0};    // bytes the program has queued (only it writes)
  std::atomic<uint32_t> asleep{0};  // the server's thread sleeps: the next message wakes it
  alignas(64) std::atomic<uint64_t> head{0};  // bytes the server has taken (only it writes)
  // Bytes each end has written to the thread's socket since the handshake (counted before they
  // are written): an end polling for the other's next message reads the socket only when these
  // say something more was sent, not at every look (a system call each).
  alignas(64) std::atomic<uint64_t> programSent{0};
  alignas(64) std::atomic<uint64_t> serverSent{0};
  alignas(64) uint8_t data[kCapacity];

  // ---- the program's end
  // Queues `n` bytes (or a marker, `bytes` null) if there is room; `wake` is set when the
  // server's thread sleeps and must be woken. False, nothing queued, when the queue is full.
  bool put(const uint8_t* bytes, uint32_t n, bool& wake) {
    const uint64_t t = tail.load(std::memory_order_relaxed);
    const uint64_t h = head.load(std::memory_order_acquire);
    const uint64_t need = sizeof(uint32_t) + (bytes ? n : 0);
    if (t - h > kCapacity || kCapacity - (t - h) < need) return false;
    const uint32_t length = bytes ? n : kMarker;
    copyIn(t, &length, sizeof length);
    if (bytes) copyIn(t + sizeof length, bytes, n);
    tail.store(t + need, std::memory_order_seq_cst);
    // (Against the server's store of `asleep` and load of `tail`, both seq_cst: one of the two
    // sees the other's store, so a message is never left unread by a sleeping server.)
    wake = asleep.load(std::memory_order_seq_cst) != 0 &&
           asleep.exchange(0, std::memory_order_seq_cst) != 0;
    return true;
  }

  void copyIn(uint64_t at, const void* from, uint64_t n) {
    const uint64_t offset = at % kCapacity;
    const uint64_t first = n < kCapacity - offset ? n : kCapacity - offset;
    std::memcpy(data + offset, from, first);
    if (n > first) std::memcpy(data, static_cast<const uint8_t*>(from) + first, n - first);
  }
};

// The server's end of one thread's queue.
class PostReader {
 public:
  explicit PostReader(PostRing* ring) : ring_(ring) {}
  enum class Took { Nothing, Message, Marker };
  // Takes the next queued message into `message` (Message), or a marker (Marker: the thread's
  // next message is on the socket); Nothing when the queue is empty. Throws `Error` for a queue
  // the program has corrupted.
  template <class Error>
  Took take(std::vector<uint8_t>& message) {
    const uint64_t t = ring_->tail.load(std::memory_order_acquire);
    if (t == head_) return Took::Nothing;
    const uint64_t have = t - head_;
    if (have > PostRing::kCapacity || have < sizeof(uint32_t))
      throw Error("the program's queue of calls is corrupt");
    uint32_t length = 0;
    copyOut(head_, &length, sizeof length);
    if (length == PostRing::kMarker) {
      advance(sizeof length);
      return Took::Marker;
    }
    if (length > have - sizeof length) throw Error("the program's queue of calls is corrupt");
    message.resize(length);
    copyOut(head_ + sizeof length, message.data(), length);
    advance(sizeof length + length);
    return Took::Message;
  }
  bool empty() const { return ring_->tail.load(std::memory_order_seq_cst) == head_; }
  // Before the server's thread sleeps: false if a message came meanwhile (then it does not).
  bool sleep() {
    ring_->asleep.store(1, std::memory_order_seq_cst);
    if (!empty()) {
      awake();
      return false;
    }
    return true;
  }
  void awake() { ring_->asleep.store(0, std::memory_order_seq_cst); }

 private:
  void advance(uint64_t n) {
    head_ += n;
    ring_->head.store(head_, std::memory_order_release);
  }
  void copyOut(uint64_t at, void* to, uint64_t n) const {
    const uint64_t offset = at % PostRing::kCapacity;
    const uint64_t first = n < PostRing::kCapacity - offset ? n : PostRing::kCapacity - offset;
    std::memcpy(to, ring_->data + offset, first);
    if (n > first) std::memcpy(static_cast<uint8_t*>(to) + first, ring_->data, n - first);
  }
  PostRing* ring_;
  uint64_t head_ = 0;  // (the server's own: the shared one is only for the program to read)
};

}  // namespace ascendsim::remote
