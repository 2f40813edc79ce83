/** What each subcommand module exports: runs with the arguments after its name. */
export type CommandMain = (argv: string[]) => Promise<void>;

/**
 * Runs a subcommand as this process's entry point (the tsx entry files of the npm scripts).
 * Commands report their own errors; this catches only what escapes them.
 */
export function runMain(main: CommandMain, argv: string[] = process.argv.slice(2)): void {
  main(argv).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
