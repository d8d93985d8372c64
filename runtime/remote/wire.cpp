#include "runtime/remote/wire.h"

#include <sched.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <unistd.h>
#include <algorithm>
#include <array>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace ascendsim::remote {
namespace asio = boost::asio;
using Local = asio::local::stream_protocol;

const uint8_t* WireReader::span(uint64_t limit, uint64_t& n) {
  n = u64();
  if (n > limit || n > size_ - pos_) throw WireError("message field too long");
  const uint8_t* at = data_ + pos_;
  pos_ += n;
  return at;
}

std::vector<uint8_t> WireReader::blob(uint64_t limit) {
  uint64_t n = 0;
  const uint8_t* at = span(limit, n);
  return std::vector<uint8_t>(at, at + n);
}

WireReader WireReader::blobReader(uint64_t limit) {
  uint64_t n = 0;
  const uint8_t* at = span(limit, n);
  return WireReader(at, n);
}

std::string_view WireReader::textView() {
  uint64_t n = 0;
  const uint8_t* at = span(kMaxMessage, n);
  return std::string_view(reinterpret_cast<const char*>(at), n);
}

uint64_t WireReader::blobInto(void* out, uint64_t capacity) {
  const uint64_t n = u64();
  if (n > capacity || n > size_ - pos_) throw WireError("message field too long");
  take(out, n);
  return n;
}

void WireReader::take(void* out, uint64_t n) {
  if (n > size_ - pos_) throw WireError("message cut short");
  if (n) std::memcpy(out, data_ + pos_, n);
  pos_ += n;
}

Channel::Channel() : socket_(io_) {}

Channel::Channel(Local::socket socket) : socket_(std::move(socket)) {}

Channel::~Channel() {
  if (wakeFd_ >= 0) ::close(wakeFd_);
}

void Channel::connect(const std::string& path) {
  socket_.connect(Local::endpoint(path));
}

void Channel::send(const WireWriter& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  sendLocked(message);
}

void Channel::answer(const WireWriter& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  sendLocked(message);
  owed_ = false;
}

void Channel::sendLocked(const WireWriter& message) {
  const uint32_t length = static_cast<uint32_t>(message.bytes().size());
  if (counts_) {
    (countServer_ ? counts_->serverSent : counts_->programSent)
        .fetch_add(sizeof length + length, std::memory_order_release);
  }
  const std::array<asio::const_buffer, 2> parts{asio::buffer(&length, sizeof length),
                                                asio::buffer(message.bytes())};
  boost::system::error_code ec;
  asio::write(socket_, parts, ec);
  if (ec) throw WireError("connection lost: " + ec.message());
}

bool Channel::receive(std::vector<uint8_t>& message) {
  if (buffered_) return receiveBuffered(message);
  uint32_t length = 0;
  boost::system::error_code ec;
  asio::read(socket_, asio::buffer(&length, sizeof length), ec);
  if (ec == asio::error::eof) return false;
  if (ec) throw WireError("connection lost: " + ec.message());
  if (length > WireReader::kMaxMessage) throw WireError("message too long");
  message.resize(length);
  asio::read(socket_, asio::buffer(message), ec);
  if (ec) throw WireError("connection lost: " + ec.message());
  return true;
}

bool Channel::takeFrame(std::vector<uint8_t>& message) {
  const size_t have = inEnd_ - inStart_;
  if (have < sizeof(uint32_t)) return false;
  uint32_t length = 0;
  std::memcpy(&length, in_.get() + inStart_, sizeof length);
  if (length > WireReader::kMaxMessage) throw WireError("message too long");
  if (have < sizeof length + length) return false;
  const uint8_t* body = in_.get() + inStart_ + sizeof length;
  message.assign(body, body + length);
  inStart_ += sizeof length + length;
  if (inStart_ == inEnd_) inStart_ = inEnd_ = 0;
  return true;
}

int Channel::pull() {
  if (closed_) return -1;
  // Room for a chunk after what is not taken yet (moved to the front; the buffer grows only for
  // a message longer than it). (Not a vector: growing one would clear its new bytes every time.)
  if (inStart_ > 0) {
    std::memmove(in_.get(), in_.get() + inStart_, inEnd_ - inStart_);
    inEnd_ -= inStart_;
    inStart_ = 0;
  }
  if (inCapacity_ - inEnd_ < kReadChunk) {
    const size_t capacity = std::max(inCapacity_ * 2, inEnd_ + kReadChunk);
    std::unique_ptr<uint8_t[]> bigger(new uint8_t[capacity]);
    if (inEnd_) std::memcpy(bigger.get(), in_.get(), inEnd_);
    in_ = std::move(bigger);
    inCapacity_ = capacity;
  }
  if (counts_ && !mustRead_) {
    const auto& sent = countServer_ ? counts_->programSent : counts_->serverSent;
    if (sent.load(std::memory_order_acquire) == received_) return 0;  // nothing new yet
  }
  mustRead_ = false;
  const ssize_t n =
      ::recv(socket_.native_handle(), in_.get() + inEnd_, inCapacity_ - inEnd_, MSG_DONTWAIT);
  if (n > 0) {
    inEnd_ += static_cast<size_t>(n);
    received_ += static_cast<uint64_t>(n);
    // A borrower took what the reader sleeps for out of the socket: the reader's poll would
    // not see it.
    if (sleeping_) {
      const uint64_t one = 1;
      (void)!::write(wakeFd_, &one, sizeof one);
    }
    return 1;
  }
  if (n == 0) {
    closed_ = true;
    return -1;
  }
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return 0;
  throw WireError(std::string("connection lost: ") + std::strerror(errno));
}

void Channel::awaitInput(std::unique_lock<std::mutex>* lock, bool& polled,
                         std::chrono::steady_clock::time_point& until) {
  // The next message usually comes within microseconds (a call's answer, a program's next
  // call): polling for it a little while costs less than being put to sleep and woken.
  if (!polled) {
    const auto now = std::chrono::steady_clock::now();
    if (until == std::chrono::steady_clock::time_point{})
      until = now + std::chrono::microseconds(spinMicros_);
    if (now <= until) {
      // Between looks the core goes to whoever else wants it: on a busy machine that is often
      // the other end, whose answer this thread is waiting for (on an idle one, nobody).
      if (lock) lock->unlock();
      sched_yield();
      if (lock) lock->lock();
      return;
    }
    polled = true;
  }
  // (A connection closed here meanwhile, by a server that stops, has no descriptor left to wait
  // on; the wait is bounded so that the next read finds that out.)
  if (socket_.native_handle() < 0) throw WireError("the connection was closed");
  pollfd p[2] = {{socket_.native_handle(), POLLIN, 0}, {-1, POLLIN, 0}};
  if (!lock) {
    ::poll(p, 1, 200);
    mustRead_ = true;
    return;
  }
  // The program's queue wakes a sleeping reader only when told that it sleeps.
  if (posts_ && !posts_->sleep()) return;
  if (wakeFd_ < 0) wakeFd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  p[1].fd = wakeFd_;
  sleeping_ = wakeFd_ >= 0;
  lock->unlock();  // (not holding the connection: a borrower may use it)
  ::poll(p, 2, 200);
  lock->lock();
  sleeping_ = false;
  mustRead_ = true;
  if (posts_) posts_->awake();
  if (wakeFd_ >= 0) {
    uint64_t woken = 0;
    (void)!::read(wakeFd_, &woken, sizeof woken);
  }
}

bool Channel::receiveBuffered(std::vector<uint8_t>& message) {
  bool polled = false;
  std::chrono::steady_clock::time_point until{};
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // What the program queued came before anything on the socket (but a marker's message).
    if (posts_ && !socketNext_) {
      const PostReader::Took took = posts_->take<WireError>(message);
      if (took == PostReader::Took::Message) return true;
      if (took == PostReader::Took::Marker) {
        socketNext_ = true;
        continue;
      }
    }
    if (!aside_.empty()) {
      message = std::move(aside_.front());
      aside_.pop_front();
    } else if (!takeFrame(message)) {
      const int got = pull();
      if (got > 0) continue;
      if (got < 0) {
        // (What was queued before the program closed its end is still to be taken.)
        if (posts_ && !socketNext_ && !posts_->empty()) continue;
        if (inEnd_ == inStart_) return false;  // closed between messages
        throw WireError("connection lost in the middle of a message");
      }
      awaitInput(&lock, polled, until);
      continue;
    }
    if (!message.empty() && message[0] == wakeKind_) continue;
    socketNext_ = false;
    if (isRequest(message)) owed_ = true;
    return true;
  }
}

bool Channel::peerWaitsLocked() {
  if (!buffered_) return false;
  if (owed_) return true;
  while (pull() > 0) {
  }
  for (const auto& m : aside_) {
    if (isRequest(m)) return true;
  }
  for (size_t at = inStart_; inEnd_ - at >= sizeof(uint32_t);) {
    uint32_t length = 0;
    std::memcpy(&length, in_.get() + at, sizeof length);
    if (length > WireReader::kMaxMessage || inEnd_ - at < sizeof length + length) break;
    // (A request's first byte is enough: its sender waits from when it sent it.)
    if (length > 0 && (requests_[in_[at + 4] / 64] >> (in_[at + 4] % 64) & 1)) return true;
    at += sizeof length + length;
  }
  return false;
}

void Channel::receiveKindLocked(uint8_t kind, std::vector<uint8_t>& message) {
  bool polled = false;
  std::chrono::steady_clock::time_point until{};
  for (;;) {
    std::vector<uint8_t> m;
    while (takeFrame(m)) {
      if (!m.empty() && m[0] == kind) {
        message = std::move(m);
        return;
      }
      aside_.push_back(std::move(m));
    }
    const int got = pull();
    if (got < 0) throw WireError("the connection was closed");
    if (got == 0) awaitInput(nullptr, polled, until);
  }
}

void Channel::sendDescriptor(int fd) {
  char byte = 'F';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  if (::sendmsg(socket_.native_handle(), &msg, MSG_NOSIGNAL) != 1)
    throw WireError(std::string("cannot pass the shared memory: ") + std::strerror(errno));
}

int Channel::receiveDescriptor() {
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (::recvmsg(socket_.native_handle(), &msg, MSG_CMSG_CLOEXEC) != 1)
    throw WireError("the server did not pass its shared memory");
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_RIGHTS)
    throw WireError("the server did not pass its shared memory");
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

void Channel::close() {
  boost::system::error_code ec;
  socket_.shutdown(Local::socket::shutdown_both, ec);
  socket_.close(ec);
}

}  // namespace ascendsim::remote
