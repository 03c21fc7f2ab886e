import type { Command } from "commander";
import { DEFAULT_CATALOGUE } from "../../../src/modules";
import { CliError } from "../io";
import type { CliCommand } from "../program";

/** One command of the tree: its path of names, subcommands, long options, and words its argument takes. */
interface Node {
  path: string[];
  subcommands: string[];
  options: string[];
  values: string[];
}

/** The program's commands, walked from the root: what completion offers after each. */
function walk(cmd: Command, path: string[], inherited: string[]): Node[] {
  const options = [...inherited, ...cmd.options.map((o) => o.long).filter((l): l is string => l !== undefined), "--help"];
  // the program's own options (--url, --profile …) are taken after any command too
  const own = path.length === 0 ? options.filter((o) => o !== "--help") : [];
  const values = path.join(" ") === "trigger" ? [...DEFAULT_CATALOGUE.eventTypes] : [];
  const node: Node = { path, subcommands: cmd.commands.map((c) => c.name()), options: [...new Set(options)], values };
  return [node, ...cmd.commands.flatMap((c) => walk(c, [...path, c.name()], own.length ? own : inherited))];
}

function bash(nodes: Node[]): string {
  const words = nodes.map((n) => `    "${n.path.join(" ")}") echo "${[...n.subcommands, ...n.values, ...n.options].join(" ")}" ;;`).join("\n");
  const known = nodes
    .filter((n) => n.path.length > 0)
    .map((n) => `"${n.path.join(" ")}"`)
    .join("|");
  return `# payrail completion for bash (and zsh through bashcompinit): eval "$(payrail completion bash)"
_payrail_words() {
  case "$1" in
${words}
  esac
}
_payrail() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    case "$next" in
      ${known}) path="$next" ;;
    esac
  done
  COMPREPLY=($(compgen -W "$(_payrail_words "$path")" -- "$cur"))
}
complete -o default -F _payrail payrail
`;
}

function zsh(nodes: Node[]): string {
  return `# payrail completion for zsh: eval "$(payrail completion zsh)"
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(nodes).split("\n").slice(1).join("\n")}`;
}

function fish(nodes: Node[]): string {
  const lines = ["# payrail completion for fish: payrail completion fish | source", "complete -c payrail -f"];
  for (const n of nodes) {
    const name = n.path[n.path.length - 1];
    const when = n.path.length === 0 ? "__fish_use_subcommand" : `__fish_seen_subcommand_from ${name}`;
    const words = [...n.subcommands, ...n.values];
    if (words.length) lines.push(`complete -c payrail -n '${when}' -a '${words.join(" ")}'`);
    for (const o of n.options) lines.push(`complete -c payrail -n '${when}' -l ${o.replace(/^--/, "")}`);
  }
  return `${lines.join("\n")}\n`;
}

const SHELLS = { bash, zsh, fish } as const;

/** `payrail completion bash|zsh|fish`: prints a completion script of every command and option. */
export const completionCommand: CliCommand = {
  register(program, ctx) {
    program
      .command("completion")
      .description('print a shell completion script: eval "$(payrail completion bash)" (or zsh; fish: payrail completion fish | source)')
      .argument("<shell>", "bash, zsh or fish")
      .action((shell: string) => {
        const script = SHELLS[shell as keyof typeof SHELLS];
        if (!script) throw new CliError(`completion is for bash, zsh or fish, got ${shell}`, 2);
        ctx.io.stdout.write(script(walk(program, [], [])));
      });
  },
};
