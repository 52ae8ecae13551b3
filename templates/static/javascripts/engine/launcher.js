// Launchers are witnesses: the lines in which torchrun, srun, mpirun, DeepSpeed's launcher and the shell
// say which rank died and how. A port of generator/diagnose/launcher.py (where the wording of
// each line is traced to its source), and of its exit-code meanings.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var SIGNALS = {
    2: ["SIGINT", "interrupted (Ctrl-C, or a launcher passing on an interrupt)"],
    4: ["SIGILL", "illegal instruction: a binary built for a newer CPU than this one"],
    6: ["SIGABRT", "the process aborted itself: an uncaught C++ exception, a failed assertion, or the NCCL watchdog tearing it down after a collective failed"],
    7: ["SIGBUS", "bus error: usually shared memory (/dev/shm) ran out, as with data loader workers in a container"],
    8: ["SIGFPE", "arithmetic fault in native code (an integer division by zero)"],
    9: ["SIGKILL", "killed from outside: most often the host's out-of-memory killer, else the scheduler"],
    11: ["SIGSEGV", "segmentation fault: native code (a CUDA or NCCL library, an extension, a data loader worker) touched memory it does not own"],
    15: ["SIGTERM", "asked to stop: the launcher or scheduler ended it, usually after another rank failed or at the time limit"],
  };

  function has(n) {
    return Object.prototype.hasOwnProperty.call(SIGNALS, n);
  }

  // The signal an exit names: itself, or as the exit code encodes it (launcher.py's signal_of).
  function exitSignal(code, signal) {
    if (signal === null && code !== null) {
      if (code < 0 && has(-code)) return -code;
      if (code > 128 && has(code - 128)) return code - 128;
    }
    return signal;
  }

  // What an exit code or signal means, in one clause (launcher.py's exit_meaning).
  function exitMeaning(code, signal) {
    if (signal === null && code !== null && code < 0) signal = -code;
    signal = exitSignal(code, signal);
    if (signal !== null) {
      var known = has(signal) ? SIGNALS[signal] : ["signal " + signal, "killed by a signal"];
      var shown = code !== null ? "exit code " + code + ": " : "";
      return shown + known[0] + ", " + known[1];
    }
    if (code === 0) return "exit code 0: finished normally";
    if (code === null) return "failed";
    return "exit code " + code + ": the program stopped with an error; its own output says which";
  }

  function report(launcher, rank, local, code, signal, summary) {
    return {
      launcher: launcher,
      rank: rank,
      local: local,
      code: code,
      signal: signal,
      summary: summary || null,
      root: false,
      failed: signal !== null || (code !== null && code !== 0),
    };
  }

  var TORCHRUN_FAILED = /failed \(exitcode: (-?\d{1,4})\) (?:local_rank: (\d{1,6}) \(pid: \d+\)|for binary located at [^\n]* with local_rank: (\d{1,6}))/;
  var SUMMARY_RANK = /^ *rank *: (\d{1,6}) \(local_rank: \d{1,6}\)/;
  var SUMMARY_EXIT = /^ *exitcode *: (-?\d{1,4}) \(pid: \d+\)/;
  var SUMMARY_FIELD = /^ *(?:traceback|error_file|msg) *: /;
  var ROOT_HEADER = /^Root Cause(?: \(first observed failure\))?:$/;
  var OTHER_HEADER = /^(?:Other )?Failures:$/;
  var SIGNAL_PID = /Signal (\d{1,3}) \(SIG[A-Z0-9]+\) received by PID \d+/;
  var SRUN = /srun: error: [^ \t\n\r\f\v:]+: tasks? (\d{1,6})[\d,\-\[\]]*: ([^\n]+)/;
  var SRUN_CODE = /Exited with exit code (\d{1,3})/;
  var SRUN_SIGNALS = [
    ["Killed", 9], ["Segmentation fault", 11], ["Aborted", 6], ["Bus error", 7],
    ["Terminated", 15], ["Floating point exception", 8], ["Illegal instruction", 4], ["Out Of Memory", 9],
  ];
  var MPIRUN = /(?:mpirun|mpiexec|orterun|prterun) noticed that process rank (\d{1,6}) with PID \d+ on node [^ \t\n\r\f\v]+ exited on signal (\d{1,3})/;
  var SPAWN = /process (\d{1,6}) terminated with (?:signal (SIG[A-Z0-9]+)|exit code (-?\d{1,4}))/;
  var SIGNAL_NUMBERS = {};
  Object.keys(SIGNALS).forEach(function (n) { SIGNAL_NUMBERS[SIGNALS[n][0]] = parseInt(n, 10); });
  var PALS = /(?:^|: )rank (\d{1,6}) died from signal (\d{1,3})/;
  var MPI_NAME = /^ *Process name: +\[\[\d+,\d+\],(\d{1,6})\]/;
  var MPI_EXIT = /^ *Exit code: +(\d{1,3})$/;
  var DEEPSPEED = /\[launch\.py:\d+:sigkill_handler\] [^\n]*exits with return code = (-?\d{1,4})/;
  // The shell's report of a job a signal ended (launcher.py's read_shell).
  var SHELL_SIGNALS = {
    "Killed": 9, "Segmentation fault": 11, "Aborted": 6, "Bus error": 7, "Illegal instruction": 4,
    "Floating point exception": 8, "killed": 9, "segmentation fault": 11, "abort": 6,
    "bus error": 7, "illegal hardware instruction": 4, "floating point exception": 8,
  };
  var SHELL_NAME = Object.keys(SHELL_SIGNALS)
    .sort(function (a, b) { return b.length - a.length; })
    .join("|");
  var SHELL = new RegExp(
    "(?:^|\\]|\\|)(" + SHELL_NAME + ")(?: \\(core dumped\\))?$" +
      "|: line \\d+: +\\d+ (" + SHELL_NAME + ")(?: \\(core dumped\\))?(?:  |$)" +
      "|^(?:zsh: |\\[\\d+\\] +\\d+ |\\d+ )(" + SHELL_NAME + ")(?: \\(core dumped\\))?(?:  |$)"
  );
  var IDE_EXIT = /Process finished with exit code (-?\d{1,10})(?: \((?:interrupted by signal (\d{1,3}): SIG[A-Z]+|\dx([0-9A-Fa-f]{1,8}))\))?/;
  var NTSTATUS_SIGNALS = { 3221225477: 11, 3221225501: 4, 3221225620: 8 };

  function int(s) {
    return parseInt(s, 10);
  }

  function signalOf(code) {
    return code < 0 ? -code : null;
  }

  // The launcher report in one line (its wrappers and rank prefix taken off), or null.
  function readLaunch(body) {
    var m = TORCHRUN_FAILED.exec(body);
    if (m !== null) {
      return report("torchrun", int(m[2] !== undefined ? m[2] : m[3]), true, int(m[1]), signalOf(int(m[1])));
    }
    m = SUMMARY_RANK.exec(body);
    if (m !== null) return report("torchrun", int(m[1]), false, null, null, "rank");
    m = SUMMARY_EXIT.exec(body);
    if (m !== null) return report("torchrun", null, false, int(m[1]), signalOf(int(m[1])), "field");
    if (SUMMARY_FIELD.test(body)) {
      m = SIGNAL_PID.exec(body);
      return report("torchrun", null, false, null, m !== null ? int(m[1]) : null, "field");
    }
    var stripped = E.pyStrip(body);
    if (ROOT_HEADER.test(stripped)) return report("torchrun", null, false, null, null, "root-header");
    if (OTHER_HEADER.test(stripped)) return report("torchrun", null, false, null, null, "other-header");
    m = SRUN.exec(body);
    if (m !== null) {
      var what = m[2];
      var code = SRUN_CODE.exec(what);
      if (code !== null) return report("srun", int(m[1]), false, int(code[1]), null);
      var sig = null;
      for (var i = 0; i < SRUN_SIGNALS.length; i++) {
        if (what.startsWith(SRUN_SIGNALS[i][0])) {
          sig = SRUN_SIGNALS[i][1];
          break;
        }
      }
      return report("srun", int(m[1]), false, null, sig);
    }
    m = MPIRUN.exec(body);
    if (m !== null) return report("mpirun", int(m[1]), false, null, int(m[2]));
    m = SPAWN.exec(body);
    if (m !== null) {
      if (m[2] !== undefined) {
        var number = Object.prototype.hasOwnProperty.call(SIGNAL_NUMBERS, m[2]) ? SIGNAL_NUMBERS[m[2]] : null;
        return report("spawn", int(m[1]), true, null, number);
      }
      return report("spawn", int(m[1]), true, int(m[3]), signalOf(int(m[3])));
    }
    m = PALS.exec(body);
    if (m !== null) return report("mpirun", int(m[1]), false, null, int(m[2]));
    m = MPI_NAME.exec(body);
    if (m !== null) return report("mpirun", int(m[1]), false, null, null, "rank");
    m = MPI_EXIT.exec(body);
    if (m !== null) return report("mpirun", null, false, int(m[1]), null, "field");
    m = DEEPSPEED.exec(body);
    // The command it quotes is the last one the launcher built, not the failed rank's
    // (launcher.py): the report names no rank.
    if (m !== null) return report("deepspeed", null, true, int(m[1]), signalOf(int(m[1])));
    return readShell(body);
  }

  // The shell's (or an IDE's) report of a job that a signal or a fault ended, or null.
  function readShell(body) {
    var m = SHELL.exec(E.pyStrip(body));
    if (m !== null) {
      return report("shell", null, false, null, SHELL_SIGNALS[m[1] || m[2] || m[3]]);
    }
    m = IDE_EXIT.exec(body);
    if (m !== null) {
      var code = int(m[1]);
      var sig = null;
      if (m[2] !== undefined) sig = int(m[2]);
      else if (m[3] !== undefined) {
        var status = parseInt(m[3], 16);
        sig = Object.prototype.hasOwnProperty.call(NTSTATUS_SIGNALS, status) ? NTSTATUS_SIGNALS[status] : null;
      } else if (code > 128 && has(code - 128)) sig = code - 128;
      return report("shell", null, false, code, sig);
    }
    return null;
  }

  E.SIGNALS = SIGNALS;
  E.exitMeaning = exitMeaning;
  E.exitSignal = exitSignal;
  E.readLaunch = readLaunch;
  E.LAUNCHER_ANCHORS = [
    "local_rank: ", "exitcode", "traceback : ", "error_file:", "msg: ", "Root Cause", "Failures:",
    "received by PID", "srun: error: ", "noticed that process rank", "died from signal",
    " terminated with ",
    "Process name: [[",
    "Exit code:", "exits with return code = ", "Killed", "killed", "Segmentation fault",
    "segmentation fault", "Aborted", "abort", "Bus error", "bus error", "Illegal instruction",
    "illegal hardware instruction", "Floating point exception", "floating point exception",
    "Process finished with exit code",
  ];
})(typeof self !== "undefined" ? self : globalThis);
