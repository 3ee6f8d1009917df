// writeFileAtomic's temporaries: a writer killed between creating
// `path`.tmp.<pid> and renaming it leaves that file behind; the next write
// of the same path removes it when its pid is dead, and touches nothing else.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "formats/safetensors.h"

namespace fs = std::filesystem;

namespace {

// A pid that was alive a moment ago and is now reaped: no such process
// (until the kernel hands it out again, which needs ~pid_max forks).
long deadPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return long(pid);
}

void touch(const fs::path& p) { std::ofstream(p) << "partial"; }

}  // namespace

TEST_CASE("a save removes stale temporaries of the same file only", "[formats][safetensors]") {
  const fs::path dir = fs::temp_directory_path() / ("mgc_tmp_test." + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string ck = (dir / "ck.safetensors").string();
  const long dead = deadPid();
  const fs::path staleOne = ck + ".tmp." + std::to_string(dead);
  const fs::path live = ck + ".tmp." + std::to_string(long(getppid()));  // a live process: its writer may be busy
  const fs::path otherFile = (dir / "other.safetensors.tmp.").string() + std::to_string(dead);
  const fs::path notAPid = ck + ".tmp.12ab";
  const fs::path longer = ck + ".tmp." + std::to_string(dead) + ".bak";
  for (const fs::path& p : {staleOne, live, otherFile, notAPid, longer}) touch(p);

  std::string err;
  REQUIRE(safetensors::writeFileAtomic(ck, {1, 2, 3}, &err));
  CHECK(fs::file_size(ck) == 3);
  CHECK_FALSE(fs::exists(staleOne));
  CHECK(fs::exists(live));
  CHECK(fs::exists(otherFile));
  CHECK(fs::exists(notAPid));
  CHECK(fs::exists(longer));
  CHECK_FALSE(fs::exists(ck + ".tmp." + std::to_string(long(getpid()))));  // its own temporary was renamed
  fs::remove_all(dir);
}
