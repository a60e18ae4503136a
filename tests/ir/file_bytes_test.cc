// A mapped model file truncated while it is read: the reader sees zeros where the file ended and
// the loader reports the file, where the process used to end with SIGBUS. SIGBUS from any other
// mapping still ends the process.
#include "ir/file_bytes.h"

#include <fcntl.h>
#include <onnx/onnx_pb.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <streambuf>
#include <string>
#include <thread>

#include "test_files.h"

namespace shapelint::ir {
namespace {

// A file of its own temporary directory, written again at each Write.
class TempFile {
 public:
  explicit TempFile(const std::string& name) : name_(name), path_(dir_.Write(name, "")) {}
  const std::string& path() const { return path_; }
  void Write(const std::string& bytes) const { dir_.Write(name_, bytes); }

 private:
  testing::TempDir dir_;
  std::string name_;
  std::string path_;
};

// A binary model of about 4 MB, mostly one initializer, with one Reshape.
std::string ModelBytes() {
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  ONNX_NAMESPACE::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  ONNX_NAMESPACE::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  w->add_dims(1 << 20);
  w->set_raw_data(std::string(size_t{4} << 20, '\x01'));
  ONNX_NAMESPACE::TensorProto* target = g->add_initializer();
  target->set_name("target");
  target->set_data_type(ONNX_NAMESPACE::TensorProto::INT64);
  target->add_dims(1);
  target->add_int64_data(-1);
  g->add_input()->set_name("x");
  g->add_output()->set_name("y");
  ONNX_NAMESPACE::NodeProto* reshape = g->add_node();
  reshape->set_op_type("Reshape");
  reshape->add_input("x");
  reshape->add_input("target");
  reshape->add_output("y");
  return m.SerializeAsString();
}

TEST_CASE("small files are read, large ones mapped", "[ir][file]") {
  TempFile file("file_bytes");
  for (size_t size :
       {size_t{1}, size_t{100}, size_t{256 * 1024 - 1}, size_t{256 * 1024}, size_t{1} << 20}) {
    INFO(size);
    std::string content(size, 'a');
    content.back() = 'z';
    file.Write(content);
    auto bytes = FileBytes::Open(file.path());
    REQUIRE(bytes.ok());
    CHECK(bytes->mapped() == (size >= 256 * 1024));
    CHECK(bytes->bytes() == content);
    CHECK_FALSE(bytes->truncated());
  }
  // An empty file has nothing to map.
  file.Write("");
  auto empty = FileBytes::Open(file.path());
  REQUIRE(empty.ok());
  CHECK_FALSE(empty->mapped());
  CHECK(empty->bytes().empty());
}

TEST_CASE("a mapped file read past its new end reads zeros and says so", "[ir][file]") {
  TempFile file("file_bytes");
  file.Write(std::string(1 << 20, 'x'));
  auto bytes = FileBytes::Open(file.path());
  REQUIRE(bytes.ok());
  REQUIRE(bytes->bytes().size() == size_t{1} << 20);
  CHECK_FALSE(bytes->truncated());
  REQUIRE(::truncate(file.path().c_str(), 4096) == 0);
  // Past the end: without the guard, SIGBUS here.
  CHECK(bytes->bytes()[size_t{1} << 19] == '\0');
  CHECK(bytes->bytes()[100] == 'x');
  CHECK(bytes->truncated());
  bytes->Release();
  CHECK(bytes->truncated());
}

TEST_CASE("a model file truncated after it was opened is reported, not linted", "[ir][file]") {
  TempFile file("file_bytes_model");
  file.Write(ModelBytes());
  {
    // The same file, left whole, loads.
    auto bytes = FileBytes::Open(file.path());
    REQUIRE(bytes.ok());
    auto model = LoadOpenedFile(*bytes, file.path(), ModelFormat::kBinary);
    INFO(model.status().message());
    CHECK(model.ok());
  }
  auto bytes = FileBytes::Open(file.path());
  REQUIRE(bytes.ok());
  REQUIRE(::truncate(file.path().c_str(), 1 << 20) == 0);
  auto model = LoadOpenedFile(*bytes, file.path(), ModelFormat::kBinary);
  REQUIRE_FALSE(model.ok());
  CHECK(std::string(model.status().message()) ==
        file.path() +
            ": the file was truncated while it was read (rewritten by another process?); lint "
            "it again once it is complete");
}

TEST_CASE("SIGBUS from a mapping the loader does not own still ends the process", "[ir][file]") {
  TempFile file("file_bytes_other");
  file.Write(std::string(1 << 16, 'x'));
  {
    // Installs the handler.
    auto bytes = FileBytes::Open(file.path());
    REQUIRE(bytes.ok());
  }
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Only async-signal-safe calls from here: the parent has threads. The report of the
    // sanitizers' handler, when they are built in, would only clutter the test's output.
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDERR_FILENO);
    const int fd = ::open(file.path().c_str(), O_RDONLY);
    void* p = fd < 0 ? MAP_FAILED : ::mmap(nullptr, 1 << 16, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED || ::ftruncate(::open(file.path().c_str(), O_WRONLY), 0) != 0) _exit(3);
    const volatile char* past_end = static_cast<const char*>(p) + (1 << 15);
    (void)*past_end;
    _exit(0);  // the read went on: the handler took a mapping that is not its own
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("child status " << status);
  CHECK_FALSE((WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3)));
}

// The message of a file refused past `max` bytes.
std::string TooLarge(const std::string& path, size_t max) {
  return path + ": more than " + std::to_string(max) +
         " bytes, larger than an ONNX model can be (protobuf's limit is 2 GiB); not read further";
}

TEST_CASE("input that never ends is refused at the size limit", "[ir][file]") {
  // The limit is protobuf's 2 GiB; tests lower it, so that nothing here holds more than 1 MiB.
  constexpr size_t kMax = size_t{1} << 20;
  SECTION("a device") {
    auto zero = FileBytes::Open("/dev/zero", kMax);
    REQUIRE_FALSE(zero.ok());
    CHECK(std::string(zero.status().message()) == TooLarge("/dev/zero", kMax));
  }
  SECTION("a pipe, fed one byte past the limit or exactly to it") {
    for (const size_t size : {kMax + 1, kMax}) {
      int fds[2];
      REQUIRE(::pipe(fds) == 0);
      // A writer that stops on its own: the reader never leaves it blocked or facing EPIPE.
      std::thread writer([fd = fds[1], size] {
        const std::string chunk(4096, 'y');
        for (size_t done = 0; done < size;) {
          const ssize_t n = ::write(fd, chunk.data(), std::min(chunk.size(), size - done));
          if (n <= 0) break;
          done += static_cast<size_t>(n);
        }
        ::close(fd);
      });
      const std::string path = "/dev/fd/" + std::to_string(fds[0]);
      auto bytes = FileBytes::Open(path, kMax);
      writer.join();
      ::close(fds[0]);
      if (size > kMax) {
        REQUIRE_FALSE(bytes.ok());
        CHECK(std::string(bytes.status().message()) == TooLarge(path, kMax));
      } else {
        REQUIRE(bytes.ok());
        CHECK(bytes->bytes().size() == kMax);
      }
    }
  }
  SECTION("a regular file larger than the limit is not read at all") {
    TempFile file("file_bytes_large");
    file.Write(std::string(kMax + 1, 'x'));
    auto bytes = FileBytes::Open(file.path(), kMax);
    REQUIRE_FALSE(bytes.ok());
    CHECK(std::string(bytes.status().message()) == TooLarge(file.path(), kMax));
  }
  SECTION("standard input (`yes | onnx-shapelint -`)") {
    // A stream of "y\n" without end, as std::cin's buffer.
    class Yes : public std::streambuf {
     protected:
      int_type underflow() override {
        setg(line_, line_, line_ + 2);
        return traits_type::to_int_type(line_[0]);
      }

     private:
      char line_[2] = {'y', '\n'};
    } yes;
    std::streambuf* old = std::cin.rdbuf(&yes);
    auto bytes = FileBytes::ReadStandardInput(kMax);
    std::cin.rdbuf(old);
    REQUIRE_FALSE(bytes.ok());
    CHECK(std::string(bytes.status().message()) == TooLarge("<stdin>", kMax));
  }
}

}  // namespace
}  // namespace shapelint::ir
