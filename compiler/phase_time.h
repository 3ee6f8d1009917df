// The wall time of one compile phase (import, a graph pass, lower, ...), as
// the report and the summary list them. Its own header so that code below
// the driver (bundle building, the report) needs nothing of the driver.
#pragma once

#include <string>

namespace mgc {

struct PhaseTime {
  std::string name;
  double ms;
};

}  // namespace mgc
