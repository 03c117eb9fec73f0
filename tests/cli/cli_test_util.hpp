// Runs the built `brigade` binary (BRIGADE_EXE) with arguments, no shell in
// between, and captures stdout, stderr and the exit code. Output goes to
// temporary files (not pipes), so a chatty child can never block on a full pipe.
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace brigade::testing {

struct CommandResult {
  int exit_code = -1;  // the child's exit status; 128 + signal if it was killed
  std::string out;
  std::string err;
};

namespace detail {

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline std::string temp_file(int& fd) {
  std::string tmpl = "/tmp/brigade-cli-test-XXXXXX";
  fd = mkstemp(tmpl.data());
  return tmpl;
}

}  // namespace detail

// `PROGRAM ARGS...` (argv[0] looked up in PATH, as a shell would); with
// `address_space_bytes` > 0, under that RLIMIT_AS (to see what the host
// running out of memory looks like).
inline CommandResult run_program(std::vector<std::string> argv_s,
                                 std::size_t address_space_bytes = 0) {
  CommandResult r;
  int out_fd = -1, err_fd = -1;
  const std::string out_path = detail::temp_file(out_fd);
  const std::string err_path = detail::temp_file(err_fd);
  if (out_fd < 0 || err_fd < 0) {
    r.err = "cli_test_util: could not create temporary files";
    return r;
  }
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    if (address_space_bytes > 0) {
      const rlimit limit{address_space_bytes, address_space_bytes};
      setrlimit(RLIMIT_AS, &limit);
    }
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(out_fd);
  close(err_fd);
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  }
  r.out = detail::slurp(out_path);
  r.err = detail::slurp(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return r;
}

// `brigade ARGS...`, the built binary (BRIGADE_EXE).
inline CommandResult run_brigade(const std::vector<std::string>& args,
                                 std::size_t address_space_bytes = 0) {
  std::vector<std::string> argv{BRIGADE_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(std::move(argv), address_space_bytes);
}

}  // namespace brigade::testing
