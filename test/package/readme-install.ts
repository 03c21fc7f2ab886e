/**
 * The shell commands of the README's "Install in your own project" section, comments and blank
 * lines removed: what the packed-package test runs, so the README says exactly what CI does.
 */
export function readmeInstallCommands(readme: string): string[] {
  const section = /^## Install in your own project\n([\s\S]*?)(?=^## )/m.exec(readme);
  if (!section) throw new Error('README.md has no "## Install in your own project" section');
  const block = /```sh\n([\s\S]*?)```/.exec(section[1]!);
  if (!block) throw new Error("the README's install section has no sh block");
  return block[1]!
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}
