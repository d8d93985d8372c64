#pragma once
// Comma-separated tables as the sweep and calibrate commands read and write them (RFC 4180
// quoting: fields with commas, quotes or newlines are quoted, quotes doubled).

#include <string>
#include <vector>

namespace ascendsim::tools {

using Row = std::vector<std::string>;

std::string csvField(const std::string& field);
Row parseCsvLine(const std::string& line);
// The first line is the header; empty lines are skipped. False if the file cannot be read (`why`
// then says why, when given: missing, not a regular file, over 256 MiB) or is empty.
bool readCsv(const std::string& path, Row& header, std::vector<Row>& rows,
             std::string* why = nullptr);
std::string csvText(const Row& header, const std::vector<Row>& rows);

}  // namespace ascendsim::tools
