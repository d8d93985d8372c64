#pragma once
// Quantities with units, as they are written in configs ("64GiB", "16GT/s", "105ns").
// Each parser returns std::nullopt and fills `why` when the text is not a valid quantity.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ascendsim::spec {

// Simulated time is kept in integer picoseconds so that runs are deterministic.
using Picoseconds = int64_t;

std::optional<uint64_t> parseBytes(std::string_view text, std::string& why);
std::optional<Picoseconds> parseDuration(std::string_view text, std::string& why);
// Bytes per second. Accepts B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s and bits (Gb/s, Mb/s).
std::optional<double> parseBandwidth(std::string_view text, std::string& why);
// Transfers per second per lane or pin: GT/s, MT/s.
std::optional<double> parseTransferRate(std::string_view text, std::string& why);
// Hertz: Hz, kHz, MHz, GHz.
std::optional<double> parseFrequency(std::string_view text, std::string& why);
std::optional<int64_t> parseInteger(std::string_view text, std::string& why);

// Formatting that parses back to exactly the same value.
std::string formatBytes(uint64_t bytes);
std::string formatDuration(Picoseconds ps);
std::string formatBandwidth(double bytesPerSecond);
// A bandwidth limit: `unlimited` for 0.
std::string formatBandwidthLimit(double bytesPerSecond);
std::string formatTransferRate(double transfersPerSecond);
std::string formatFrequency(double hertz);

// Human-readable forms for tables (rounded; not for round trips).
std::string describeBytes(uint64_t bytes);
std::string describeBandwidth(double bytesPerSecond);

}  // namespace ascendsim::spec
