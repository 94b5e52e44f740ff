// The small benches' one argument reader: positional whole numbers with defaults and bounds,
// `--help`, and a one-line error (exit 2) for anything else.

/**
 * Reads `argv` as positional whole numbers, one per entry of `counts` ({ name, default, max }).
 * Prints `usage` and exits 0 on --help or -h; prints `<bench>: <what is wrong> — <usage>` and
 * exits 2 on a bad or extra argument. Returns the numbers, defaults filled in.
 */
export function countArgs(argv, bench, usage, counts) {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  const problem =
    argv.length > counts.length
      ? 'too many arguments'
      : argv
          .map((a, i) => (!/^[1-9]\d{0,6}$/.test(a) ? `not a positive whole number: ${JSON.stringify(a)}` : Number(a) > counts[i].max ? `${counts[i].name} is at most ${counts[i].max}: ${a}` : null))
          .find((p) => p !== null);
  if (problem) {
    console.error(`${bench}: ${problem} — ${usage}`);
    process.exit(2);
  }
  return counts.map((c, i) => (argv[i] === undefined ? c.default : Number(argv[i])));
}
