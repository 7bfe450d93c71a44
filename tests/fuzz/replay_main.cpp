// Replays inputs through a fuzz harness without libFuzzer: each input in a child process under
// a time limit and (outside ASan builds) an address-space limit, so that a crash, a hang or an
// unbounded allocation is reported against its input and the rest still run.
//
// fvmmini-fuzz-replay-<harness> [--time-limit S] [--memory-limit MiB] INPUT...
// An INPUT that is a folder stands for every file in it.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/scratch_folder.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define FVMMINI_REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FVMMINI_REPLAY_ASAN 1
#endif
#endif

namespace {

struct Options {
  unsigned time_limit_s = 10;
  unsigned long memory_limit_mib = 2048;
  std::vector<std::filesystem::path> inputs;
};

[[noreturn]] void usage(const std::string& message) {
  std::cerr << "fuzz replay: " << message
            << "\nusage: fvmmini-fuzz-replay-<harness> [--time-limit S] [--memory-limit MiB] INPUT...\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> unsigned long {
      if (i + 1 == argc) usage(arg + " needs a value");
      char* end = nullptr;
      const unsigned long v = std::strtoul(argv[++i], &end, 10);
      if (*end != '\0' || v == 0) usage(arg + ": '" + argv[i] + "' is not a positive integer");
      return v;
    };
    if (arg == "--time-limit")
      options.time_limit_s = static_cast<unsigned>(value());
    else if (arg == "--memory-limit")
      options.memory_limit_mib = value();
    else if (arg.starts_with("--"))
      usage("unknown option " + arg);
    else if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      options.inputs.insert(options.inputs.end(), files.begin(), files.end());
    } else if (std::filesystem::is_regular_file(arg))
      options.inputs.emplace_back(arg);
    else
      usage(arg + ": no such file or folder");
  }
  if (options.inputs.empty()) usage("no input");
  return options;
}

/// The child: run one input through the harness. Exits 0 when the harness returns.
[[noreturn]] void run_child(const std::filesystem::path& input, const Options& options) {
#ifndef FVMMINI_REPLAY_ASAN  // ASan reserves terabytes of shadow address space
  const rlim_t cap = static_cast<rlim_t>(options.memory_limit_mib) << 20;
  const rlimit limit{cap, cap};
  setrlimit(RLIMIT_AS, &limit);
#endif
  alarm(options.time_limit_s);
  std::ifstream in(input, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    std::cerr << input.string() << ": cannot read\n";
    std::_Exit(2);
  }
  try {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  } catch (const std::exception& e) {
    std::cerr << input.string() << ": exception escaped the harness: " << e.what() << "\n";
    std::exit(3);
  }
  std::exit(0);
}

/// Run one input in a child; "" when it ended cleanly, else what went wrong.
std::string replay(const std::filesystem::path& input, const Options& options) {
  std::cout.flush();
  const pid_t child = fork();
  if (child < 0) return std::string("fork failed: ") + std::strerror(errno);
  if (child == 0) run_child(input, options);
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return std::string("waitpid failed: ") + std::strerror(errno);
  if (WIFEXITED(status))
    return WEXITSTATUS(status) == 0 ? "" : "exit status " + std::to_string(WEXITSTATUS(status));
  const int signal = WTERMSIG(status);
  if (signal == SIGALRM) return "no result within " + std::to_string(options.time_limit_s) + " s (hang)";
  return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  int failed = 0;
  for (const auto& input : options.inputs) {
    const auto start = std::chrono::steady_clock::now();
    const std::string failure = replay(input, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!failure.empty()) ++failed;
    std::printf("%s %s (%.2f s)%s%s\n", failure.empty() ? "ok  " : "FAIL", input.c_str(), seconds,
                failure.empty() ? "" : ": ", failure.c_str());
  }
  std::printf("%zu input(s), %d failed\n", options.inputs.size(), failed);
  return failed == 0 ? 0 : 1;
}
