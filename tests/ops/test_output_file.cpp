// Atomic output files: the target is replaced only by a complete file, and
// a failure says why and leaves no temporary file behind; a killed run's
// temporaries are cleaned by the next write; special files are streams.
#include "ops/diagnostic.hpp"
#include "ops/output_file.hpp"
#include "ops/source_file.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace eqsat::ops;
namespace fs = std::filesystem;

namespace {
// A fresh empty directory for one test.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("eqsat_test_output_file_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
}  // namespace

TEST_CASE("the file holds every part and replaces an old one") {
  const fs::path dir = fresh_dir("parts");
  const std::string path = (dir / "out.txt").string();
  std::ofstream(path) << "an old, longer content that must disappear";
  write_file_atomically(path, {"abc", "", "def"});
  CHECK(read_source_file(path) == "abcdef");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("failures name the OS reason and leave nothing behind") {
  const fs::path dir = fresh_dir("failures");
  const std::string missing = (dir / "no" / "out.txt").string();
  CHECK_THROWS_WITH(write_file_atomically(missing, {"x"}),
                    missing + ": error: cannot write file: No such file or directory");
  std::ofstream((dir / "plain").string()) << "a file, not a directory";
  const std::string under_file = (dir / "plain" / "out.txt").string();
  CHECK_THROWS_WITH(write_file_atomically(under_file, {"x"}),
                    under_file + ": error: cannot write file: Not a directory");
  fs::create_directories(dir / "sub");
  CHECK_THROWS_WITH(write_file_atomically((dir / "sub").string(), {"x"}),
                    Catch::Contains("cannot write file: it is a directory"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 2);
}

namespace {
// The id of a process that has ended (and been reaped): no process has it
// until the kernel hands it out again, far later.
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}
}  // namespace

TEST_CASE("a killed run's temporaries are removed by the next write - only dead processes' ones") {
  const fs::path dir = fresh_dir("stale");
  const std::string path = (dir / "y.npy").string();
  const long dead = dead_pid();
  const std::string stale = temporary_path_for(path, dead, 3);
  CHECK(fs::path(stale).filename() == ".y.npy.tmp-" + std::to_string(dead) + "-3");
  const std::string live = temporary_path_for(path, ::getppid(), 0);  // the test's parent runs
  const std::string other_file = temporary_path_for((dir / "z.npy").string(), dead, 1);
  const std::string not_ours = (dir / (".y.npy.tmp-" + std::to_string(dead) + "-3x")).string();
  for (const std::string& f : {stale, live, other_file, not_ours})
    std::ofstream(f) << std::string(1000, 'x');
  write_file_atomically(path, {"new"});
  CHECK(read_source_file(path) == "new");
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(live));
  CHECK(fs::exists(other_file));  // another target's: left to its own next write
  CHECK(fs::exists(not_ours));    // not exactly our naming
  CHECK(remove_stale_temporaries((dir / "z.npy").string()) == 1);
  CHECK_FALSE(fs::exists(other_file));
}

TEST_CASE("a name of 255 bytes is written - its temporary's name is cut to fit") {
  const fs::path dir = fresh_dir("long");
  const std::string name(255, 'n');
  const std::string path = (dir / name).string();
  CHECK(fs::path(temporary_path_for(path, 4194304, 4294967295u)).filename().string().size() <= 255);
  write_file_atomically(path, {"long"});
  CHECK(read_source_file(path) == "long");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("a special file is written through as a stream - never replaced") {
  write_file_atomically("/dev/null", {"into the void"});
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK_THROWS_WITH(write_file_atomically("/dev/full", {"x"}),
                    "/dev/full: error: cannot write file: No space left on device");
  REQUIRE(::stat("/dev/full", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));

  const fs::path dir = fresh_dir("fifo");
  const std::string fifo = (dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // No reader: refused at once, not waited on.
  CHECK_THROWS_WITH(write_file_atomically(fifo, {"x"}),
                    fifo + ": error: cannot write file: it is a named pipe that no process reads");
  std::string received;
  std::thread reader([&] { received = read_source_file(fifo); });
  // The reader's open blocks until a writer comes: retry until it is there.
  for (int i = 0;; ++i) {
    try {
      write_file_atomically(fifo, {"through ", "the pipe"});
      break;
    } catch (const DiagnosticError&) {
      REQUIRE(i < 1000);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  reader.join();
  CHECK(received == "through the pipe");
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}
