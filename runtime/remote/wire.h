#pragma once
// The wire between a program's libascendcl and the machine served by `ascendsim exec --shared`:
// length-prefixed messages over a Unix-domain stream socket (Boost.Asio), little-endian fields.
// Only arguments, results and addresses travel here; bytes stay in shared memory.

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/remote/post_ring.h"

namespace ascendsim::remote {

// Raised for a message that is cut short or malformed, and for a connection that broke.
struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class WireWriter {
 public:
  void u8(uint8_t v) { bytes_.push_back(v); }
  void u32(uint32_t v) { raw(&v, sizeof v); }
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void i32(int32_t v) { raw(&v, sizeof v); }
  void blob(const void* p, uint64_t n) {
    u64(n);
    raw(p, n);
  }
  void text(const std::string& s) { blob(s.data(), s.size()); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  void clear() { bytes_.clear(); }  // (kept: its storage is used again)

 private:
  // (Not inlined: inlined into some callers, GCC 12 at -O3 takes the vector's growth for an
  // overflow, -Wstringop-overflow.)
  __attribute__((noinline)) void raw(const void* p, uint64_t n) {
    const size_t at = bytes_.size();
    bytes_.resize(at + n);
    if (n) std::memcpy(bytes_.data() + at, p, n);
  }
  std::vector<uint8_t> bytes_;
};

class WireReader {
 public:
  explicit WireReader(const std::vector<uint8_t>& bytes)
      : data_(bytes.data()), size_(bytes.size()) {}
  // The bytes at `data` (a blob of another message, say), which outlive the reader.
  WireReader(const uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  uint8_t u8() { return scalar<uint8_t>(); }
  uint32_t u32() { return scalar<uint32_t>(); }
  uint64_t u64() { return scalar<uint64_t>(); }
  int32_t i32() { return scalar<int32_t>(); }
  // A blob's bytes (its length first); `limit` bounds what a hostile peer can make us hold.
  std::vector<uint8_t> blob(uint64_t limit = kMaxMessage);
  // A blob read straight into `out`, which holds `capacity` bytes; returns its length.
  uint64_t blobInto(void* out, uint64_t capacity);
  std::string text() {
    const std::string_view t = textView();
    return std::string(t);
  }
  // A blob or text where it lies in the message, not copied (valid while the message lives).
  WireReader blobReader(uint64_t limit = kMaxMessage);
  std::string_view textView();
  bool done() const { return pos_ == size_; }

  static constexpr uint64_t kMaxMessage = 64ull << 20;

 private:
  template <class T>
  T scalar() {
    T v{};
    take(&v, sizeof v);
    return v;
  }
  void take(void* out, uint64_t n);
  // The next blob's length (checked against the message and `limit`) and where its bytes start.
  const uint8_t* span(uint64_t limit, uint64_t& n);
  const uint8_t* data_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

// One connected socket with blocking, framed sends and receives, and descriptor passing
// (SCM_RIGHTS) for the shared-memory file the server hands each client.
// In read-ahead mode another thread may borrow the connection for a while (the server runs a
// program's kernel on a thread of the program that waits for an answer here): it holds mutex()
// and uses the *Locked functions; send(), answer() and receive() take the mutex themselves, and
// receive() does not hold it while it sleeps.
class Channel {
 public:
  Channel();
  explicit Channel(boost::asio::local::stream_protocol::socket socket);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  void connect(const std::string& path);
  void send(const WireWriter& message);
  // The next message; false when the peer closed the connection cleanly.
  bool receive(std::vector<uint8_t>& message);
  void sendDescriptor(int fd);
  int receiveDescriptor();
  void close();
  boost::asio::local::stream_protocol::socket& socket() { return socket_; }
  // From now on receive() reads ahead (several messages per system call) and polls `micros`
  // before it sleeps. Not before a descriptor is to be received: reading ahead would swallow it.
  void readAhead(int micros) {
    buffered_ = true;
    spinMicros_ = micros;
  }

  // The server's end: the thread's queue of calls sent without waiting (post_ring.h), whose
  // messages receive() returns before the socket's (set before the connection is shared).
  void readPosts(PostRing* ring) { posts_.emplace(ring); }
  // From now on both ends count the bytes they write to the socket in `ring` (the thread's queue:
  // post_ring.h), and the reader, while it polls, reads the socket only when the other's count
  // has moved. `server`: this is the server's end.
  void countSends(PostRing* ring, bool server) {
    counts_ = ring;
    countServer_ = server;
    mustRead_ = true;
  }
  // Messages whose first byte is `kind` only wake the reader (a program's Wake): receive() skips
  // them.
  void wakeKind(uint8_t kind) { wakeKind_ = kind; }

  // Requests: messages whose first byte is `kind` (any number of kinds) are answered, and the peer
  // waits for the answer (set before the connection is shared).
  void requestKind(uint8_t kind) { requests_[kind / 64] |= uint64_t{1} << (kind % 64); }
  // Sends the answer to the request receive() returned last: the peer no longer waits.
  void answer(const WireWriter& message);

  // ---- for a thread that borrows the connection, holding mutex()
  std::mutex& mutex() { return mutex_; }
  // Whether the peer waits for an answer now: a request receive() returned is not answered yet,
  // or one has arrived that receive() has not returned yet. Reads what has arrived; never waits.
  bool peerWaitsLocked();
  void sendLocked(const WireWriter& message);
  // The next message whose first byte is `kind` (waiting for it); the messages that came before
  // it are kept, in order, for receive().
  void receiveKindLocked(uint8_t kind, std::vector<uint8_t>& message);

 private:
  bool receiveBuffered(std::vector<uint8_t>& message);
  bool isRequest(const std::vector<uint8_t>& m) const {
    return !m.empty() && (requests_[m[0] / 64] >> (m[0] % 64) & 1);
  }
  // The next whole message in the read-ahead buffer, if there is one.
  bool takeFrame(std::vector<uint8_t>& message);
  // Reads what has arrived into the buffer: 1 if something did, 0 if nothing (yet), -1 if the
  // peer closed the connection. Never waits.
  int pull();
  // Waits until something arrives (polling first, then asleep). The reader (receive()) gives
  // its `lock` of mutex_, let go meanwhile; a borrower, who holds mutex_ throughout, none.
  void awaitInput(std::unique_lock<std::mutex>* lock, bool& polled,
                  std::chrono::steady_clock::time_point& until);
  static constexpr size_t kReadChunk = 64 * 1024;
  bool buffered_ = false;
  int spinMicros_ = 0;
  std::mutex mutex_;
  // Read ahead: bytes [inStart_, inEnd_) of in_ are received and not taken yet.
  std::unique_ptr<uint8_t[]> in_;
  size_t inCapacity_ = 0, inStart_ = 0, inEnd_ = 0;
  bool closed_ = false;                     // the peer closed its end
  std::deque<std::vector<uint8_t>> aside_;  // messages a borrower read past
  uint64_t requests_[4] = {0, 0, 0, 0};
  bool owed_ = false;  // a request was returned and not answered
  std::optional<PostReader> posts_;
  bool socketNext_ = false;  // the queue gave a marker: the next message is the socket's
  int wakeKind_ = -1;
  // The reader sleeps in poll() (set and read under mutex_): a borrower that reads from the
  // socket meanwhile (it may take the reader's messages into the buffer) wakes it through
  // wakeFd_ (an eventfd; made at the first sleep), or it would sleep on until its timeout.
  bool sleeping_ = false;
  int wakeFd_ = -1;
  PostRing* counts_ = nullptr;  // countSends
  bool countServer_ = false;
  uint64_t received_ = 0;  // bytes read from the socket since countSends
  bool mustRead_ = true;   // read the socket whatever the count says (after a poll: a close)
  boost::asio::io_context io_;
  boost::asio::local::stream_protocol::socket socket_;
};

}  // namespace ascendsim::remote
