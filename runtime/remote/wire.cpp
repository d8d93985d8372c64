#include "runtime/remote/wire.h"

#include <sched.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

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

void Channel::connect(const std::string& path) {
  socket_.connect(Local::endpoint(path));
}

void Channel::send(const WireWriter& message) {
  const uint32_t length = static_cast<uint32_t>(message.bytes().size());
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

bool Channel::receiveBuffered(std::vector<uint8_t>& message) {
  for (bool polled = false;;) {
    const size_t have = in_.size() - inStart_;
    if (have >= sizeof(uint32_t)) {
      uint32_t length = 0;
      std::memcpy(&length, in_.data() + inStart_, sizeof length);
      if (length > WireReader::kMaxMessage) throw WireError("message too long");
      if (have >= sizeof length + length) {
        const auto* body = in_.data() + inStart_ + sizeof length;
        message.assign(body, body + length);
        inStart_ += sizeof length + length;
        return true;
      }
    }
    if (inStart_ > 0) {  // keep only what is not taken yet
      in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(inStart_));
      inStart_ = 0;
    }
    // The next message usually comes within microseconds (a call's answer, a program's next
    // call): polling for it a little while costs less than being put to sleep and woken.
    const size_t at = in_.size();
    in_.resize(at + kReadChunk);
    const int fd = socket_.native_handle();
    ssize_t n = -1;
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spinMicros_);
    for (;;) {
      n = ::recv(fd, in_.data() + at, kReadChunk, polled ? 0 : MSG_DONTWAIT);
      if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) break;
      if (polled) {
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, -1);
      } else if (std::chrono::steady_clock::now() > until) {
        polled = true;
      } else {
        // Between looks the core goes to whoever else wants it: on a busy machine that is often
        // the other end, whose answer this thread is waiting for (on an idle one, nobody).
        sched_yield();
      }
    }
    in_.resize(at + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n == 0) {
      if (in_.size() == inStart_) return false;  // closed between messages
      throw WireError("connection lost in the middle of a message");
    }
    if (n < 0) throw WireError(std::string("connection lost: ") + std::strerror(errno));
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
