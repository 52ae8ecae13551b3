"""Running the CLI in a child that reports its own peak memory, for the hostile-input tests."""

# Runs the CLI and reports the child's own peak RSS (KiB) on the last line of stderr. VmHWM
# belongs to the process's own memory map, which exec replaces; getrusage's ru_maxrss would
# carry over the peak of the pytest process that forked it.
RUN = (
    "import re, sys\n"
    "from generator.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
    "print('MAXRSS', hwm, file=sys.stderr)\n"
    "sys.exit(rc)\n"
)
MAX_RSS_MIB = 200
