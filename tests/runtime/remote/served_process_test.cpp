// What a served process owns (runtime/remote/machine_server.h, ServedProcess): the handles only it
// may use, and how a destroy's disown leaves alone what another of its threads makes at the freed
// address before the disown (#29). (The interleaving itself cannot be forced through the served
// calls: it needs another server thread's create to reuse the freed address within the few
// microseconds between a destroy's return and its disown; the table is driven through it here.)

#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/remote/machine_server.h"

namespace ascendsim::remote {
namespace {

constexpr uint64_t kModel = 0x7f0000001000;   // a model's handle (its address in the server)
constexpr uint64_t kBranch = 0x7f0000002000;  // a condition's branch of it
constexpr uint64_t kLater = 0x7f0000003000;   // a branch of the model made later at kModel

TEST(ServedProcessOwnership, AModelMadeAtADestroyedOnesAddressBeforeTheDisownStaysOwned) {
  // Thread A destroys the model; before A's server thread disowns it, thread B makes a new model,
  // which the allocator puts at the freed address, and a branch of it. A's disown takes the old
  // model and its branch (owned before A's destroy began), not B's model nor its branch.
  ServedProcess p;
  p.own(kModel, kModel);
  p.own(kBranch, kModel);
  const uint64_t beforeDestroy = p.ownedSoFar();  // A, as its destroy begins
  p.own(kModel, kModel);                          // B's new model
  p.own(kLater, kModel);                          // and its branch
  p.disown(kModel, beforeDestroy);                // A, after its destroy
  EXPECT_EQ(p.ownerOf(kModel), kModel);
  EXPECT_EQ(p.ownerOf(kLater), kModel);
  EXPECT_EQ(p.ownerOf(kBranch), 0u);
  // B destroys its model in turn: it goes, with its branch.
  p.disown(kModel, p.ownedSoFar());
  EXPECT_EQ(p.ownerOf(kModel), 0u);
  EXPECT_EQ(p.ownerOf(kLater), 0u);
}

TEST(ServedProcessOwnership, ADisownWithNothingMadeMeanwhileTakesEverythingOfTheOwner) {
  // Two binaries, each with a function: unloading the first (nothing made meanwhile) takes it and
  // its function, and leaves the second's.
  ServedProcess p;
  constexpr uint64_t kFirst = 0x1000, kFirstFunction = 0x1100;
  constexpr uint64_t kSecond = 0x2000, kSecondFunction = 0x2100;
  p.own(kFirst, kFirst);
  p.own(kFirstFunction, kFirst);
  p.own(kSecond, kSecond);
  p.own(kSecondFunction, kSecond);
  p.disown(kFirst, p.ownedSoFar());
  EXPECT_EQ(p.ownerOf(kFirst), 0u);
  EXPECT_EQ(p.ownerOf(kFirstFunction), 0u);
  EXPECT_EQ(p.ownerOf(kSecond), kSecond);
  EXPECT_EQ(p.ownerOf(kSecondFunction), kSecond);
}

}  // namespace
}  // namespace ascendsim::remote
