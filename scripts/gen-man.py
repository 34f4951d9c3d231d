#!/usr/bin/env python3
"""Writes tailcause's man pages (section 8) and its bash and zsh completion from the binary.

The options come from 'tailcause help-options [COMMAND]' (hidden: the tables the commands
parse with, user/cmd/cli_opts.h), the prose from 'tailcause [COMMAND] --help': the usage
lines become the SYNOPSIS, the text before the options the DESCRIPTION (a "checks:" or
"commands:" list a section of it), "examples:" the EXAMPLES, "exit codes:" the EXIT STATUS
(the top level's where a command has none). Nothing is written here by hand, so the help,
the man pages and the completion cannot name different options.

Usage: scripts/gen-man.py man BIN OUTDIR          tailcause.8, tailcause-COMMAND.8
       scripts/gen-man.py completion BIN OUTDIR   tailcause (bash), _tailcause (zsh)
SOURCE_DATE_EPOCH, where set, dates the pages (else the binary's time).
"""
import os
import re
import subprocess
import sys
import time

# The names of values that are files (completed as such); DIR a directory.
FILE_ARGS = {"FILE", "CSV", "OUT"}
DIR_ARGS = {"DIR"}


def run(binary, *args):
    return subprocess.run([binary, *args], check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def listing(binary, command=None):
    """(commands, options) of 'help-options': commands [(name, summary)], options [dict]."""
    commands, options = [], []
    for line in run(binary, "help-options", *([command] if command else [])).splitlines():
        kind, _, rest = line.partition("\t")
        if kind == "command":
            name, summary = rest.split("\t", 1)
            commands.append((name, summary))
        elif kind == "option":
            short, long, has_arg, arg = rest.split("\t")
            options.append({"short": short, "long": long, "has_arg": has_arg,
                            "arg": arg, "text": []})
        elif kind == "text":
            options[-1]["text"].append(rest)
        else:
            sys.exit("gen-man: unexpected line from help-options: %r" % line)
    return commands, options


def parse_help(text):
    """The help's parts: usage lines, then (section, lines) in order ("" the description)."""
    lines = text.rstrip("\n").split("\n")
    if not lines[0].startswith("usage: "):
        sys.exit("gen-man: a help that does not start with usage: %r" % lines[0])
    usage, i = [lines[0][len("usage: "):]], 1
    while i < len(lines) and lines[i].strip():
        more = lines[i].strip()
        if more.startswith("tailcause"):
            usage.append(more)
        else:
            usage[-1] += " " + more
        i += 1
    sections, name = [("", [])], ""
    for line in lines[i:]:
        header = re.match(r"([a-z][a-z ]*):$", line)
        if header:
            sections.append((header.group(1), []))
        elif line.startswith("exit codes:"):
            sections.append(("exit codes", [line[len("exit codes:"):].strip()]))
        else:
            sections[-1][1].append(line)
    return usage, sections


def esc(s):
    """Text for roff: backslashes and hyphens escaped, no control character first."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def paragraphs(lines):
    """Blocks of lines split by blank lines."""
    block = []
    for line in lines + [""]:
        if line.strip():
            block.append(line)
        elif block:
            yield block
            block = []


def prose(lines, out):
    """Paragraphs, filled; a block whose lines are all indented is shown as it is."""
    for block in paragraphs(lines):
        if all(line.startswith(" ") for line in block):
            indent = min(len(line) - len(line.lstrip()) for line in block)
            out += [".PP", ".RS 4", ".nf"] + [esc(line[indent:]) for line in block]
            out += [".fi", ".RE"]
        else:
            out.append(".PP")
            out += [esc(line.strip()) for line in block]


def two_columns(lines):
    """A "  name   text" list with indented continuation lines: [(name, [text lines])]."""
    items = []
    for line in lines:
        m = re.match(r"  (\S+)\s{2,}(\S.*)$", line)
        if m:
            items.append((m.group(1), [m.group(2)]))
        elif line.strip() and items:
            items[-1][1].append(line.strip())
    return items


def option_tag(o):
    """".TP"'s tag: \\fB\\-p\\fR, \\fB\\-\\-probe\\fR \\fINAME\\fR."""
    tag = "\\fB%s\\fR" % esc(o["long"])
    if o["short"]:
        tag = "\\fB%s\\fR, %s" % (esc(o["short"]), tag)
    if o["has_arg"] == "optional":
        tag += "[=\\fI%s\\fR]" % esc(o["arg"])
    elif o["arg"]:
        tag += " \\fI%s\\fR" % esc(o["arg"])
    return tag


def option_text(text, out):
    """An option's help lines: filled, but an indented run of lines (a list) as it is."""
    i = 0
    while i < len(text):
        if text[i].startswith(" "):
            j = i
            while j < len(text) and text[j].startswith(" "):
                j += 1
            # .RS without a width: the item's indent; .IP: back to it after the block
            out += [".RS", ".nf"] + [esc(line) for line in text[i:j]] + [".fi", ".RE"]
            out += [".IP"] if j < len(text) else []
            i = j
        else:
            out.append(esc(text[i]))
            i += 1


def exit_status(line):
    """"0 ok, 1 usage, 2 environment (privileges, kernel feature), ...": [(code, meaning)]."""
    return [(m.group(1), m.group(2)) for m in
            (re.match(r"(\d+) (.*)$", part) for part in re.split(r",\s*(?=\d+ )", line))
            if m]


def page(name, summary, usage, sections, options, top_exit, see_also, commands, meta):
    """One man page, as lines of roff."""
    title = name.upper()
    out = ['.\\" Generated by scripts/gen-man.py from the help and the option tables of '
           "tailcause; do not edit.",
           '.TH %s 8 "%s" "tailcause %s" "System Administration"' % (esc(title), meta[0],
                                                                        esc(meta[1])),
           ".nh", ".ad l",  # no hyphens cut into option names, no stretched spaces
           ".SH NAME", "%s \\- %s" % (esc(name), esc(summary)), ".SH SYNOPSIS"]
    for i, line in enumerate(usage):
        words = line.split(" ")
        cmd = 2 if len(words) > 1 and words[1] == name.partition("-")[2] else 1
        out += [".br"] if i else []
        out += [".B %s" % esc(" ".join(words[:cmd]))]
        if words[cmd:]:
            out.append(esc(" ".join(words[cmd:])))
    out.append(".SH DESCRIPTION")
    exit_line = top_exit
    for section, lines in sections:
        if section == "":
            prose(lines, out)
        elif section == "options":
            continue
        elif section == "exit codes":
            exit_line = " ".join(line.strip() for line in lines)
        elif section == "commands":
            continue  # tailcause.8's COMMANDS, from help-options
        elif section == "examples":
            continue
        else:
            out.append(".SS %s" % esc(section.capitalize()))
            for item, text in two_columns(lines):
                out += [".TP", ".B %s" % esc(item)] + [esc(t) for t in text]
    if commands:
        out.append(".SH COMMANDS")
        for cmd, text in commands:
            out += [".TP", ".BR tailcause\\-%s (8)" % esc(cmd), esc(text)]
    out.append(".SH OPTIONS")
    for o in options:
        out += [".TP", option_tag(o)]
        option_text(o["text"], out)
    out.append(".SH EXIT STATUS")
    for code, meaning in exit_status(exit_line):
        out += [".TP", ".B %s" % code, esc(meaning)]
    examples = [line for section, lines in sections if section == "examples" for line in lines]
    if any(line.strip() for line in examples):
        out += [".SH EXAMPLES", ".RS 4", ".nf"]
        out += [esc(line[2:] if line.startswith("  ") else line)
                for line in examples if line.strip()]
        out += [".fi", ".RE"]
    out.append(".SH SEE ALSO")
    out.append(",\n".join(".BR %s (8)" % esc(s) for s in see_also))
    return "\n".join(out) + "\n"


def write(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def gen_man(binary, outdir):
    commands, main_options = listing(binary)
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", os.stat(binary).st_mtime))
    meta = (time.strftime("%Y-%m-%d", time.gmtime(epoch)),
            run(binary, "--version").split()[-1])
    main_usage, main_sections = parse_help(run(binary, "--help"))
    top_exit = " ".join(line.strip() for s, lines in main_sections if s == "exit codes"
                        for line in lines)
    names = ["tailcause-" + c for c, _ in commands]
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):  # a page of a command gone would be installed too
        if old.endswith(".8") and old[:-2] not in names:
            os.remove(os.path.join(outdir, old))
    for cmd, summary in commands:
        usage, sections = parse_help(run(binary, cmd, "--help"))
        _, options = listing(binary, cmd)
        see = ["tailcause"] + [n for n in names if n != "tailcause-" + cmd]
        write(os.path.join(outdir, "tailcause-%s.8" % cmd),
              page("tailcause-" + cmd, summary, usage, sections, options, top_exit, see,
                   None, meta))
    # last: make's target, newer than the others
    write(os.path.join(outdir, "tailcause.8"),
          page("tailcause", "find out why a latency test has a tail", main_usage,
               main_sections, main_options, top_exit, names, commands, meta))


def words(options):
    return " ".join(w for o in options for w in (o["short"], o["long"]) if w)


def bash(commands, main_options, per_command):
    """The bash completion: options, their values' files, the commands, files after them."""
    out = ["# bash completion for tailcause. Generated by scripts/gen-man.py from the option",
           "# tables of tailcause (tailcause help-options); do not edit.",
           "_tailcause()", "{",
           "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
           "\tlocal cmd='' i opts valued files dirs",
           "\tfor ((i = 1; i < COMP_CWORD; i++)); do",
           "\t\tcase ${COMP_WORDS[i]} in",
           "\t\t--)",
           "\t\t\t[ -n \"$cmd\" ] || continue",
           "\t\t\t# record -- CMD ARGS: a command, then its arguments",
           "\t\t\tif ((i + 1 == COMP_CWORD)); then",
           "\t\t\t\tmapfile -t COMPREPLY < <(compgen -c -- \"$cur\")",
           "\t\t\telse",
           "\t\t\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")",
           "\t\t\tfi",
           "\t\t\treturn",
           "\t\t\t;;",
           "\t\t-*) ;;",
           "\t\t*) [ -n \"$cmd\" ] || cmd=${COMP_WORDS[i]} ;;",
           "\t\tesac",
           "\tdone",
           "\tcase $cmd in",
           "\t'') opts='%s' ;;" % words(main_options)]
    for cmd, options in per_command:
        valued = [o for o in options if o["has_arg"] == "required"]
        out += ["\t%s)" % cmd,
                "\t\topts='%s'" % words(options),
                "\t\tvalued=' %s '" % words(valued),
                "\t\tfiles=' %s '" % words(o for o in valued if o["arg"] in FILE_ARGS),
                "\t\tdirs=' %s '" % words(o for o in valued if o["arg"] in DIR_ARGS),
                "\t\t;;"]
    out += ["\t*) return ;;",
            "\tesac",
            "\tif [[ $valued == *\" $prev \"* ]]; then",
            "\t\tif [[ $files == *\" $prev \"* ]]; then",
            "\t\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")",
            "\t\telif [[ $dirs == *\" $prev \"* ]]; then",
            "\t\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\")",
            "\t\telse",
            "\t\t\tCOMPREPLY=()",
            "\t\tfi",
            "\telif [[ $cur == -* ]]; then",
            "\t\tmapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")",
            "\telif [ -z \"$cmd\" ]; then",
            "\t\tmapfile -t COMPREPLY < <(compgen -W '%s' -- \"$cur\")"
            % " ".join(c for c, _ in commands),
            "\telse",
            "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")",
            "\tfi",
            "}",
            "complete -o filenames -F _tailcause tailcause"]
    return "\n".join(out) + "\n"


def zsh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def zsh_spec(o):
    """One _arguments spec: '(-p --probe)'{-p+,--probe=}'[what]:NAME:_files'."""
    what = o["text"][0].strip() if o["text"] else ""
    what = what.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    action = ""
    if o["arg"]:
        value = "_files -/" if o["arg"] in DIR_ARGS else \
            "_files" if o["arg"] in FILE_ARGS else " "
        action = "%s%s:%s" % (":" if o["has_arg"] == "optional" else "",
                              ":" + o["arg"].replace(":", "\\:"), value)
    suffix = {"required": ("+", "="), "optional": ("", "=-"), "none": ("", "")}[o["has_arg"]]
    body = zsh_quote("[%s]%s" % (what, action))
    if o["short"]:
        return "%s{%s%s,%s%s}%s" % (zsh_quote("(%s %s)" % (o["short"], o["long"])),
                                    o["short"], suffix[0], o["long"], suffix[1], body)
    return zsh_quote(o["long"] + suffix[1]) + body


def zsh(commands, main_options, per_command):
    """The zsh completion (#compdef): one _arguments function per command."""
    out = ["#compdef tailcause",
           "# zsh completion for tailcause. Generated by scripts/gen-man.py from the option",
           "# tables of tailcause (tailcause help-options); do not edit.", ""]
    for cmd, options in per_command:
        out += ["_tailcause_%s() {" % cmd, "\t_arguments -s -S \\"]
        out += ["\t\t%s \\" % zsh_spec(o) for o in options]
        out += ["\t\t'*:file:_files'", "}", ""]
    out += ["_tailcause() {",
            "\tlocal curcontext=$curcontext state line",
            "\tlocal -a commands",
            "\tcommands=("]
    out += ["\t\t%s" % zsh_quote("%s:%s" % (c, s.replace(":", "\\:"))) for c, s in commands]
    out += ["\t)", "\t_arguments -C \\"]
    out += ["\t\t%s \\" % zsh_spec(o) for o in main_options]
    out += ["\t\t'1:command:->command' \\",
            "\t\t'*::argument:->argument'",
            "\tcase $state in",
            "\tcommand) _describe -t commands 'tailcause command' commands ;;",
            "\targument) (( $+functions[_tailcause_$words[1]] )) && _tailcause_$words[1] ;;",
            "\tesac",
            "}",
            "",
            '_tailcause "$@"']
    return "\n".join(out) + "\n"


def gen_completion(binary, outdir):
    commands, main_options = listing(binary)
    per_command = [(cmd, listing(binary, cmd)[1]) for cmd, _ in commands]
    os.makedirs(outdir, exist_ok=True)
    write(os.path.join(outdir, "tailcause"), bash(commands, main_options, per_command))
    write(os.path.join(outdir, "_tailcause"), zsh(commands, main_options, per_command))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("man", "completion"):
        sys.exit("usage: gen-man.py man|completion BIN OUTDIR")
    (gen_man if sys.argv[1] == "man" else gen_completion)(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
