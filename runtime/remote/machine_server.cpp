#include "runtime/remote/machine_server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "runtime/core/runtime.h"
#include "runtime/remote/kernel_service.h"
#include "runtime/remote/post_ring.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/shared_host_memory.h"

namespace ascendsim::remote {
namespace asio = boost::asio;
using Local = asio::local::stream_protocol;

namespace {
// (Found by the name as it lies in the message: std::less<> compares a string_view.)
std::map<std::string, ServedHandler, std::less<>>& servedCalls() {
  static std::map<std::string, ServedHandler, std::less<>> calls;
  return calls;
}

// Processes without a launcher's rank come after every rank, in the order they connect.
constexpr uint32_t kFirstUnranked = 1u << 16;
// A thread's place in the runtime's order: its process's, then its number in the process.
constexpr uint32_t kThreadBits = 12;
// Trace processes of the job's programs start here (devices and the interconnect come first).
constexpr int kFirstTraceProcess = 10000;
// How long the first ranks wait for the rest of a job of known size to connect.
constexpr auto kJobStart = std::chrono::seconds(60);

std::string trackName(const ServedProcess& p) {
  const std::string who = p.rank >= 0 ? "Rank " + std::to_string(p.rank)
                                      : "Process " + std::to_string(p.order - kFirstUnranked);
  return who + " (" + p.program + ")";
}
}  // namespace

void registerServedCall(const char* name, ServedHandler handler) {
  servedCalls().emplace(name, handler);  // the first of the libraries that carry the C API wins
}

void ServedProcess::drop(uint64_t handle) {
  std::lock_guard<std::mutex> lock(heldMutex);
  for (auto* list : {&held, &heldUntilExit}) {
    auto it =
        std::find_if(list->begin(), list->end(), [&](const auto& h) { return h.first == handle; });
    if (it != list->end()) {
      list->erase(it);
      return;
    }
  }
}

void ServedProcess::releaseAtExit() {
  {
    std::lock_guard<std::mutex> lock(heldMutex);
    // (Released last in, first out: after the rest's end, so before it.)
    for (auto& h : heldUntilExit) held.push_back(std::move(h));
    heldUntilExit.clear();
  }
  releaseAll();
}

void ServedProcess::releaseAll() {
  for (;;) {
    uint64_t handle = 0;
    std::function<void()> release;
    {
      std::lock_guard<std::mutex> lock(heldMutex);
      if (held.empty()) return;
      handle = held.back().first;
      release = std::move(held.back().second);
      held.pop_back();
    }
    const uint64_t ownedBefore = ownedSoFar();
    release();  // an AscendCL call: not under the lock (it may wait for other threads)
    // What went with it is no longer this process's: an object made later at the same address
    // (after another aclInit, by any process) is not taken for it; one another thread of the
    // process made there meanwhile is still its own.
    disown(handle, ownedBefore);
  }
}

// ---------------------------------------------------------------- one connection

Session::Session(MachineServer& server, std::unique_ptr<Channel> channel)
    : server_(server), channel_(std::move(channel)) {
  // The program's thread waits for the answer to these (and may run kernels meanwhile).
  channel_->requestKind(static_cast<uint8_t>(MessageKind::Call));
  channel_->requestKind(static_cast<uint8_t>(MessageKind::Stage));
  channel_->wakeKind(static_cast<uint8_t>(MessageKind::Wake));
}

Session::Joined Session::handshake() {
  std::vector<uint8_t> message;
  if (!channel_->receive(message)) return Joined::No;
  WireReader in(message);
  if (in.u8() != static_cast<uint8_t>(MessageKind::Hello)) throw WireError("expected a hello");
  const uint32_t version = in.u32();
  WireWriter reply;
  reply.u32(kProtocolVersion);
  if (version != kProtocolVersion) {
    reply.u8(0);
    reply.text("protocol version mismatch: the program's libascendcl speaks version " +
               std::to_string(version) + ", this ascendsim exec serves version " +
               std::to_string(kProtocolVersion) +
               " (run the program with the libascendcl of the same AscendSim)");
    channel_->send(reply);
    return Joined::No;
  }
  const pid_t pid = in.i32();
  const pid_t tid = in.i32();
  const int32_t rank = in.i32();
  const int32_t world = in.i32();
  const uint32_t threadNumber = in.u32();
  const std::string program = in.text();
  const uint64_t programThread = in.u64();
  if (threadNumber == kServiceThread) {
    // Attached before the answer: the program's next call may launch a kernel at once.
    auto* channel = channel_.get();
    if (!server_.attachKernelService(pid, channel_)) {
      reply.u8(0);
      reply.text("a kernel service connected for a process the server does not know");
      channel->send(reply);
      return Joined::No;
    }
    reply.u8(1);
    reply.text("");
    channel->send(reply);
    channel->sendDescriptor(SharedHostMemory::instance()->fd());
    channel->sendDescriptor(server_.storeDescriptor());
    return Joined::Service;
  }
  process_ = server_.join(pid, rank, program);
  runtime::HostTrack track{kFirstTraceProcess + static_cast<int>(process_->order),
                           trackName(*process_), threadNumber};
  waitingOutside_ = new (SharedHostMemory::instance()->allocate(64, 64)) runtime::MpiWaits();
  auto* posts = new (SharedHostMemory::instance()->allocate(sizeof(PostRing), 64)) PostRing();
  {
    // (Both given back only when the process has gone: a thread whose connection broke may
    // still write them.)
    std::lock_guard<std::mutex> lock(process_->heldMutex);
    process_->waitWords.push_back(waitingOutside_);
    process_->waitWords.push_back(posts);
  }
  runtime::Runtime::instance().enrollRemoteThread(
      (process_->order << kThreadBits) | (threadNumber & ((1u << kThreadBits) - 1)), pid, tid,
      std::move(track), waitingOutside_, servedThreadId(*process_, programThread));
  // Every rank of a job of known size starts at the same simulated instant, in rank order,
  // whichever connects first: none goes on before all are enrolled.
  if (threadNumber == 0 && world > 0 && process_->rank >= 0) server_.awaitRanks(world);
  reply.u8(1);
  reply.text("");
  reply.u64(reinterpret_cast<uint64_t>(waitingOutside_));
  reply.u64(reinterpret_cast<uint64_t>(posts));
  channel_->readPosts(posts);
  channel_->send(reply);
  channel_->sendDescriptor(SharedHostMemory::instance()->fd());
  channel_->sendDescriptor(server_.storeDescriptor());
  channel_->countSends(posts, true);
  return Joined::Thread;
}

void Session::serveCall(WireReader& in, MessageKind kind) {
  // The program's thread is in a call from now on: the others wait for its turn.
  if (runtime::HostThread* self = runtime::HostThreads::self()) self->entering = true;
  const bool reply = kind == MessageKind::Call;
  // Name, arguments and a Check's answer are read where they lie in the message, and the results
  // written into the session's own writer: no allocation for a call that succeeds.
  const std::string_view name = in.textView();
  WireReader args = in.blobReader();
  std::string_view given;  // a Check's answer, which the program gave already
  if (kind == MessageKind::Check) given = in.textView();
  WireWriter& results = results_;
  results.clear();
  aclError code = ACL_SUCCESS;
  std::string error;
  auto it = servedCalls().find(name);
  if (it == servedCalls().end()) {
    code = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    error =
        std::string(name) + ": not served to programs sharing a machine (ascendsim exec --shared)";
  } else {
    code = it->second(*this, args, results);
    if (code != ACL_SUCCESS) {
      const char* text = runtime::Runtime::instance().takeRecentError();
      error = text ? text : "";
    }
  }
  if (runtime::HostThread* self = runtime::HostThreads::self()) {
    self->entering = false;  // (a call refused before it reached the runtime)
    runtime::Runtime::instance().threadsChanged();
  }
  const bool sameAnswer =
      results.bytes().size() == given.size() &&
      (given.empty() || std::memcmp(results.bytes().data(), given.data(), given.size()) == 0);
  if (kind == MessageKind::Check && (code != ACL_SUCCESS || !sameAnswer)) {
    // The program answered from what this machine said before; the machine now says otherwise
    // (another thread of the program changed this one's context meanwhile, say).
    if (deferredCode_ == ACL_SUCCESS) {
      deferredCode_ = code != ACL_SUCCESS ? code : ACL_ERROR_RT_INTERNAL_ERROR;
      deferredError_ = std::string(name) +
                       ": answered in the program from the machine's earlier answer, which no "
                       "longer holds" +
                       (code != ACL_SUCCESS ? ": " + error : std::string(" (another value)")) +
                       " (ASCENDSIM_PIPELINE=0 asks the machine every time)";
    }
    return;
  }
  if (!reply) {
    // Sent without waiting: its failure goes back with the thread's next call that waits.
    if (code != ACL_SUCCESS && deferredCode_ == ACL_SUCCESS) {
      deferredCode_ = code;
      deferredError_ = error +
                       " (this asynchronous call was sent without waiting for its result;"
                       " ASCENDSIM_PIPELINE=0 makes every call return its own)";
    }
    return;
  }
  if (deferredCode_ != ACL_SUCCESS) {
    if (code == ACL_SUCCESS) {
      code = deferredCode_;
      error = deferredError_;
      results.clear();
    }
    deferredCode_ = ACL_SUCCESS;
  }
  WireWriter& answer = answer_;
  answer.clear();
  answer.u8(static_cast<uint8_t>(MessageKind::Reply));
  answer.i32(code);
  answer.text(error);
  answer.blob(results.bytes().data(), results.bytes().size());
  channel_->answer(answer);
}

void Session::serveStage(WireReader& in) {
  const uint8_t slot = in.u8();
  const uint64_t bytes = in.u64();
  if (slot > 1) throw WireError("no such staging buffer");
  SharedHostMemory& shared = *SharedHostMemory::instance();
  if (staging_[slot]) shared.release(staging_[slot]);
  staging_[slot] = shared.allocate(bytes, 4096);
  WireWriter reply;
  reply.u8(static_cast<uint8_t>(MessageKind::Reply));
  reply.u64(reinterpret_cast<uint64_t>(staging_[slot]));
  channel_->answer(reply);
}

void Session::run() {
  try {
    const Joined joined = handshake();
    if (joined == Joined::Service) return;  // the channel is the process's kernel service now
    if (joined == Joined::No) {
      channel_->close();
      return;
    }
    {
      std::lock_guard<std::mutex> lock(process_->threadsMutex);
      process_->threads.push_back(this);
    }
    std::vector<uint8_t> message;
    while (channel_->receive(message)) {
      WireReader in(message);
      const auto kind = static_cast<MessageKind>(in.u8());
      if (kind == MessageKind::Call || kind == MessageKind::Post || kind == MessageKind::Check) {
        serveCall(in, kind);
      } else if (kind == MessageKind::Stage) {
        serveStage(in);
      } else {
        throw WireError("unknown message");
      }
    }
  } catch (const WireError& e) {
    if (process_)
      std::cerr << "ascendsim exec: " << trackName(*process_) << ": " << e.what() << "\n";
  }
  if (process_) {
    // (Waits for a kernel or release of the process that borrows the connection to end.)
    std::lock_guard<std::mutex> lock(process_->threadsMutex);
    auto& threads = process_->threads;
    threads.erase(std::remove(threads.begin(), threads.end(), this), threads.end());
  }
  channel_->close();
  // A program gone while its thread ran a callback: the callback's stream goes on.
  while (!callbacksRunning.empty()) {
    const std::function<void()> end = std::move(callbacksRunning.back());
    callbacksRunning.pop_back();
    end();
  }
  for (void*& s : staging_) {
    if (s) SharedHostMemory::instance()->release(s);
    s = nullptr;
  }
  if (!process_) return;
  // A process gone without giving back what it held (it crashed, was killed, or never finalized)
  // gives it back now; the job's other processes go on.
  const bool gone = server_.leave(*process_);
  if (gone) process_->releaseAtExit();
  runtime::Runtime::instance().remoteThreadEnded(gone);  // (it no longer reads the word)
  waitingOutside_ = nullptr;
  if (gone) {
    std::lock_guard<std::mutex> lock(process_->heldMutex);
    for (void* word : process_->waitWords) SharedHostMemory::instance()->release(word);
    process_->waitWords.clear();
  }
}

// ---------------------------------------------------------------- the server

MachineServer::MachineServer() : acceptor_(io_) {
  char pattern[] = "/tmp/ascendsim-machine-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("cannot make a directory for the socket");
  directory_ = pattern;
  socketPath_ = directory_ + "/machine.sock";
  acceptor_.open(Local());
  acceptor_.bind(Local::endpoint(socketPath_));
  acceptor_.listen();
  ::fcntl(acceptor_.native_handle(), F_SETFD, FD_CLOEXEC);
  SharedHostMemory& shared = SharedHostMemory::create();
  runtime::useHostMemory(shared);
  reserveDeviceWindow();
  runtime::DeviceMemory::placeInWindow(AddressPlan::kDeviceBase, AddressPlan::kDeviceSize);
  storeFd_ = SharedDeviceStore::create();
  runtime::DeviceMemory::shareStore(SharedDeviceStore::base(), AddressPlan::kDeviceBase);
}

MachineServer::~MachineServer() {
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec);
}

void MachineServer::start() {
  runtime::Runtime::instance().addInternalThread();
  runtime::HostThreads::InternalThreads internal;  // not a program's thread
  acceptor_thread_ = std::thread([this] { acceptLoop(); });
}

void MachineServer::acceptLoop() {
  for (;;) {
    Local::socket socket(io_);
    boost::system::error_code ec;
    acceptor_.accept(socket, ec);
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    if (ec) continue;
    ::fcntl(socket.native_handle(), F_SETFD, FD_CLOEXEC);
    auto channel = std::make_unique<Channel>(std::move(socket));
    channel->readAhead(50);  // a program's next call often follows its last reply at once
    auto* session = new Session(*this, std::move(channel));
    sessions_.push_back(session);
    runtime::HostThreads::InternalThreads internal;
    sessionThreads_.emplace_back([this, session] {
      session->run();
      std::lock_guard<std::mutex> ended(mutex_);
      sessions_.erase(std::find(sessions_.begin(), sessions_.end(), session));
      delete session;
      changed_.notify_all();
    });
  }
}

void MachineServer::stop(std::chrono::milliseconds grace) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);  // wakes the blocked accept
    changed_.wait_for(lock, grace, [&] { return sessions_.empty(); });
    for (Session* s : sessions_) s->close();
  }
  if (acceptor_thread_.joinable()) acceptor_thread_.join();
  for (std::thread& t : sessionThreads_) t.join();
  sessionThreads_.clear();
}

std::shared_ptr<ServedProcess> MachineServer::join(pid_t pid, int32_t rank,
                                                   const std::string& program) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<ServedProcess>& p = processes_[pid];
  if (!p) {
    p = std::make_shared<ServedProcess>();
    p->pid = pid;
    p->program = program;
    if (rank >= 0 && ranks_.insert(rank).second) {
      p->rank = rank;
      p->order = static_cast<uint32_t>(rank);
    } else {
      p->order = kFirstUnranked + nextUnranked_++;
    }
    changed_.notify_all();
  }
  ++p->connections;
  return p;
}

bool MachineServer::attachKernelService(pid_t pid, std::unique_ptr<Channel>& channel) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = processes_.find(pid);
  if (it == processes_.end()) return false;
  it->second->kernels = std::make_shared<KernelService>(std::move(channel), it->second);
  return true;
}

void MachineServer::awaitRanks(int32_t world) {
  std::unique_lock<std::mutex> lock(mutex_);
  ++enrolledRanks_;
  changed_.notify_all();
  const bool all =
      changed_.wait_for(lock, kJobStart, [&] { return enrolledRanks_ >= world || stopping_; });
  if (!all) {
    std::cerr << "ascendsim exec: only " << enrolledRanks_ << " of " << world
              << " ranks connected within " << kJobStart.count() << " s; going on\n";
  }
}

bool MachineServer::leave(ServedProcess& p) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (--p.connections > 0) return false;
  if (p.kernels) p.kernels->close();
  auto it = processes_.find(p.pid);
  if (it != processes_.end() && it->second.get() == &p) processes_.erase(it);
  changed_.notify_all();
  return true;
}

}  // namespace ascendsim::remote
