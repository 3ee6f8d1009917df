// fileio::readAll / notAFile: the one way every reader reads a file, and the
// messages every command gives for paths that are not regular files.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/file_read.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    const char* t = std::getenv("TMPDIR");
    path = fs::path(t ? t : "/tmp") / ("mgc-file-read-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("readAll reads a regular file whole, bytes and text alike") {
  TempDir t;
  const std::string p = (t.path / "a.bin").string();
  std::string want(200000, '\0');
  for (size_t i = 0; i < want.size(); ++i) want[i] = char(i * 7 + i / 251);
  std::ofstream(p, std::ios::binary) << want;
  std::vector<uint8_t> bytes;
  std::string text, err;
  REQUIRE(fileio::readAll(p, &bytes, &err));
  REQUIRE(fileio::readAll(p, &text, &err));
  CHECK(text == want);
  CHECK(std::string(bytes.begin(), bytes.end()) == want);
  CHECK(fileio::notAFile(p).empty());

  const std::string empty = (t.path / "empty").string();
  std::ofstream(empty).flush();
  REQUIRE(fileio::readAll(empty, &bytes, &err));
  CHECK(bytes.empty());
}

TEST_CASE("readAll names the path and what it is instead of a file") {
  TempDir t;
  std::vector<uint8_t> bytes{1, 2, 3};
  std::string err;
  CHECK_FALSE(fileio::readAll(t.path.string(), &bytes, &err));
  CHECK(err == t.path.string() + ": is a folder, not a file");
  CHECK(bytes.empty());  // nothing half-read is left behind
  CHECK(fileio::notAFile(t.path.string()) == err);

  CHECK_FALSE(fileio::readAll("/dev/null", &bytes, &err));
  CHECK(err == "/dev/null: is a character device, not a file");

  const std::string fifo = (t.path / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_FALSE(fileio::readAll(fifo, &bytes, &err));  // must not block on the pipe
  CHECK(err == fifo + ": is a pipe, not a file");

  const std::string missing = (t.path / "missing.onnx").string();
  CHECK_FALSE(fileio::readAll(missing, &bytes, &err));
  CHECK(err == missing + ": cannot open file");
  CHECK(fileio::notAFile(missing) == err);
}

TEST_CASE("readAll refuses a file above the size bound before reading it") {
  TempDir t;
  const std::string p = (t.path / "big.json").string();
  std::ofstream(p) << std::string(1000, 'x');
  std::string text, err;
  CHECK_FALSE(fileio::readAll(p, &text, &err, 999));
  CHECK(err == p + ": 1000 bytes, more than the 999 allowed");
  REQUIRE(fileio::readAll(p, &text, &err, 1000));
  CHECK(text.size() == 1000);
}
