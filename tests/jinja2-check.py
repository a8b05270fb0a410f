#!/usr/bin/env python3
"""jinja2-check.py: the Python side of tests/chat.bats, with Jinja2 in the
environment transformers renders chat templates with
(transformers/utils/chat_template_utils.py: an ImmutableSandboxedEnvironment
with trim_blocks, lstrip_blocks and the loopcontrols extension, its tojson,
raise_exception and strftime_now).

    python3 jinja2-check.py template FILE   stdin: one JSON object of
                                            variables a line; out: each
                                            rendering + NUL
    python3 jinja2-check.py chat DIR        chat.c's template of a model
                                            folder (chat_template.jinja,
                                            else tokenizer_config.json's
                                            chat_template: a string, or the
                                            list entry "default", the last
                                            of that name); stdin: one
                                            conversation (an array of
                                            messages or an object with
                                            "messages") a line, the special
                                            tokens as variables,
                                            add_generation_prompt true
                                            unless it says; out: each
                                            rendering + "\n"

A failed rendering is written as "<error>" (its message on stderr), as
build/rel/jjrender and tests/jinja-check.mjs write it.  strftime_now
formats $SOURCE_DATE_EPOCH (local time) when it is set.  Exit 3 when
Jinja2 is not installed (Debian: python3-jinja2).
"""
import json
import os
import sys
from datetime import datetime

try:
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment
except ImportError:
    sys.stderr.write("jinja2-check: jinja2 not installed (python3-jinja2)\n")
    sys.exit(3)


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        # transformers' own: json.dumps, not Jinja2's HTML-safe one
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent,
                          separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        t = os.environ.get("SOURCE_DATE_EPOCH")
        now = datetime.fromtimestamp(int(t)) if t else datetime.now()
        return now.strftime(fmt)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render(tmpl, variables, end):
    try:
        out = tmpl.render(**variables)
    except Exception as e:  # every failure is "<error>", as pipelm's
        sys.stderr.write("jinja2-check: %s: %s\n" % (type(e).__name__, e))
        out = "<error>"
    sys.stdout.buffer.write(out.encode("utf-8", "surrogatepass") + end)


def special(cfg, name):
    v = cfg.get(name)
    if isinstance(v, dict):
        v = v.get("content")
    return v if isinstance(v, str) else None


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("template", "chat"):
        sys.stderr.write("usage: jinja2-check.py template FILE | chat DIR\n")
        sys.exit(2)
    env = environment()
    if sys.argv[1] == "template":
        with open(sys.argv[2], encoding="utf-8") as f:
            tmpl = env.from_string(f.read())
        for line in sys.stdin:
            if line.strip():
                render(tmpl, json.loads(line), b"\0")
        return
    with open(os.path.join(sys.argv[2], "tokenizer_config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    jinja = os.path.join(sys.argv[2], "chat_template.jinja")
    if os.path.exists(jinja):
        with open(jinja, encoding="utf-8") as f:
            src = f.read()
    else:
        src = cfg["chat_template"]
        if isinstance(src, list):
            src = {t["name"]: t["template"] for t in src}["default"]
    tmpl = env.from_string(src)
    for line in sys.stdin:
        if not line.strip():
            continue
        conv = json.loads(line)
        v = {}
        for name in ("bos_token", "eos_token", "unk_token", "pad_token"):
            if special(cfg, name) is not None:
                v[name] = special(cfg, name)
        v["add_generation_prompt"] = True
        if isinstance(conv, list):
            v["messages"] = conv
        else:
            v.update(conv)
        render(tmpl, v, b"\n")


if __name__ == "__main__":
    main()
