#pragma once
// The picture of a sweep's table: a figure against one swept key, one line per combination of
// the other keys' values, or, given a second key, a heat map over the two.

#include <string>
#include <vector>

#include "tools/csv_table.h"
#include "tools/sweep/sweep_grid.h"

namespace ascendsim::tools {

// `rows` in the grid's order (the table as saved); writes `svgPath`. Returns an exit code and
// says on stderr what cannot be drawn.
int plotSweep(const Row& header, const std::vector<Row>& rows,
              const std::vector<SweepParameter>& params, const std::string& figure,
              const std::string& against, const std::string& by, const std::string& svgPath);

}  // namespace ascendsim::tools
