#!/usr/bin/env python3
"""A stand-in for the HuggingFace Hub's file API, for tests/llm-fetch.bats.

    hubstub.py ROOT CTL LOG PORTFILE

ROOT/ORG/NAME/<commit>/...   the files of each commit (40 hex digits)
ROOT/ORG/NAME/refs/<rev>     a branch or tag: the commit it points at

Two servers on 127.0.0.1, each on a port the kernel picks, written as
"HUBPORT CDNPORT" to PORTFILE once both listen:

  hub  GET  /api/models/ORG/NAME/revision/REV   repo info: sha, siblings
       HEAD/GET /ORG/NAME/resolve/REV/PATH      a regular file: 200, ETag
            (the git blob sha1), X-Repo-Commit; an LFS file (*.safetensors,
            *.bin, *.gguf): 302 to the cdn with X-Linked-Etag (the sha256),
            X-Linked-Size
  cdn  HEAD/GET /blob/SHA256?sig=...            the LFS content; Range: bytes=N-

As the Hub does: a repository that does not exist answers 401
(X-Error-Code: RepoNotFound), a revision that does not exist 404
(RevisionNotFound), a file that does not exist 404 (EntryNotFound).

Faults, read from files in CTL at every request (tests change them between
runs):
  CTL/status    "401" or "403": every hub request answers that (a private or
                a gated repository), "401 GatedRepo": a gated one to a request
                without a token
  CTL/token     the hub wants "Authorization: Bearer <its content>" (else 401)
  CTL/cut       N: the next cdn GET sends its headers, N bytes, then closes
                the connection (the file is removed: the next GET is whole)
  CTL/corrupt   the cdn serves the content with one byte changed
  CTL/norange   the cdn ignores Range (answers 200 and the whole content)
  CTL/siblings  extra file names (JSON list) appended to every file list
  CTL/etag      an ETag the hub sends for every regular file instead of its own
  CTL/commit    an X-Repo-Commit the hub sends instead of the true one
  CTL/info      a body the hub sends for the repository info instead of its own
  CTL/cdnstatus a status the cdn answers every request with
  CTL/renamed   "OLD/NAME NEW/NAME": the hub redirects OLD's URLs to NEW's
                with a relative Location (307), as for a renamed repository

A malicious Hub, loopback only like the rest (issue 31):
  CTL/flood     N: a file's content (the hub's GET of a regular file, the
                cdn's GET) is N bytes of "x", chunked, whatever the HEAD
                announced; "hub|cdn flood sent=M" is logged, M the bytes
                the client took before it went away
  CTL/trickle   R: a file's content is sent at R bytes a second
  CTL/infoflood N: the repository info is sent chunked (no Content-Length),
                its JSON after N bytes of spaces; "hub infoflood sent=M"
  CTL/errmsg    the X-Error-Message of every hub error, these bytes as
                they are (control characters, C1, bidirectional controls)

LOG gets one line per request: "hub|cdn METHOD PATH auth=... range=...".
The servers stop after 300 s whatever happens (tests are bounded in time).
"""
import hashlib
import json
import os
import socketserver
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT, CTL, LOG, PORTFILE = sys.argv[1:5]
LFS = (".safetensors", ".bin", ".gguf")
loglock = threading.Lock()
ports = {}


def ctl(name):
    try:
        with open(os.path.join(CTL, name), "rb") as f:
            return f.read().decode().strip()
    except FileNotFoundError:
        return None


def note(line):
    with loglock, open(LOG, "a") as f:
        f.write(line + "\n")


def log(server, handler):
    h = handler.headers
    line = "%s %s %s auth=%s range=%s\n" % (
        server, handler.command, handler.path,
        (h.get("Authorization") or "-").replace(" ", "_"),
        h.get("Range") or "-")
    with loglock, open(LOG, "a") as f:
        f.write(line)


def resolve(org, name, rev):
    """(repo dir, commit) or (repo dir or None, None)."""
    repo = os.path.join(ROOT, org, name)
    if not os.path.isdir(repo) or "/" in org + name or org.startswith("."):
        return None, None
    if len(rev) == 40 and os.path.isdir(os.path.join(repo, rev)):
        return repo, rev
    ref = os.path.normpath(os.path.join(repo, "refs", rev))
    if ref.startswith(os.path.join(repo, "refs") + "/") and os.path.isfile(ref):
        with open(ref) as f:
            return repo, f.read().strip()
    return repo, None


def files(tree):
    out = []
    for d, _, names in os.walk(tree):
        for n in names:
            out.append(os.path.relpath(os.path.join(d, n), tree))
    return sorted(out)


def blobs():
    """sha256 -> path of every LFS file under ROOT."""
    out = {}
    for d, _, names in os.walk(ROOT):
        for n in names:
            if n.endswith(LFS):
                p = os.path.join(d, n)
                with open(p, "rb") as f:
                    out[hashlib.sha256(f.read()).hexdigest()] = p
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, headers=(), body=b""):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, code, xcode, msg, extra=()):
        body = json.dumps({"error": msg}).encode()
        if os.path.exists(os.path.join(CTL, "errmsg")):
            with open(os.path.join(CTL, "errmsg"), "rb") as f:
                # latin-1: send_header writes these bytes back unchanged
                msg = f.read().decode("latin-1")
        self.reply(code, [("X-Error-Code", xcode), ("X-Error-Message", msg),
                          ("Content-Type", "application/json")] + list(extra),
                   body)

    def chunked(self, code, headers, n, body=b"", what="flood"):
        """N bytes (spaces before BODY, else "x"), chunked, without end
        but N; logs how many the client took."""
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        fill = (b" " if body else b"x") * 65536
        sent = 0
        try:
            while sent < n:
                c = fill[:n - sent]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(c), c))
                sent += len(c)
            if body:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(body), body))
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass
        self.close_connection = True
        note("%s %s sent=%d" % (self.name, what, sent))

    def content(self, code, headers, data):
        """A file's content, or what the malicious Hub makes of it."""
        if self.command == "GET" and ctl("flood") is not None:
            return self.chunked(code, headers, int(ctl("flood")))
        if self.command == "GET" and ctl("trickle") is not None:
            rate = float(ctl("trickle"))
            self.send_response(code)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                for i in range(len(data)):
                    self.wfile.write(data[i:i + 1])
                    time.sleep(1 / rate)
            except OSError:
                pass
            self.close_connection = True
            return
        self.reply(code, headers, data)


class Hub(Handler):
    name = "hub"

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        log("hub", self)
        status = ctl("status")
        if status == "401 GatedRepo":
            return self.error(401, "GatedRepo", "Access to model is restricted. "
                              "You must have access to it and be authenticated to access it.")
        if status == "401":
            return self.error(401, "RepoNotFound", "Invalid username or password.")
        if status == "403":
            return self.error(403, "GatedRepo", "Access to model is restricted "
                              "and you are not in the authorized list.")
        token = ctl("token")
        if token is not None and self.headers.get("Authorization") != "Bearer " + token:
            return self.error(401, "RepoNotFound", "Invalid username or password.")
        path = urllib.parse.urlsplit(self.path).path
        renamed = ctl("renamed")
        if renamed:
            old, new = renamed.split()
            for pre in ("/api/models/", "/"):
                if path.startswith(pre + old + "/"):
                    loc = pre + new + path[len(pre + old):]
                    return self.reply(307, [("Location", loc)])
        parts = path.split("/")
        # /api/models/ORG/NAME/revision/REV
        if len(parts) == 7 and parts[1:3] == ["api", "models"] and parts[5] == "revision":
            org, name, rev = parts[3], parts[4], urllib.parse.unquote(parts[6])
            return self.info(org, name, rev)
        # /ORG/NAME/resolve/REV/PATH...
        if len(parts) >= 6 and parts[3] == "resolve":
            org, name, rev = parts[1], parts[2], urllib.parse.unquote(parts[4])
            rel = urllib.parse.unquote("/".join(parts[5:]))
            return self.resolve(org, name, rev, rel)
        self.error(404, "NotFound", "no such endpoint")

    def info(self, org, name, rev):
        repo, commit = resolve(org, name, rev)
        if repo is None:
            return self.error(401, "RepoNotFound", "Repository not found")
        if commit is None:
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
        sibs = [{"rfilename": f} for f in files(os.path.join(repo, commit))]
        extra = ctl("siblings")
        if extra:
            sibs += [{"rfilename": f} for f in json.loads(extra)]
        # Shaped like the Hub's answer, with decoys a careless parser takes:
        # a "sha" and "siblings" nested in other members, escapes, unicode.
        doc = {
            "_id": "0123456789abcdef01234567",
            "id": org + "/" + name,
            "private": False,
            "cardData": {"license": "apache-2.0", "sha": "0" * 40,
                         "siblings": [{"rfilename": "decoy.safetensors"}],
                         "widget": [{"text": "a \"quoted\" \\ str\u00e9ng {[\n"}]},
            "tags": ["safetensors", "llama"],
            "config": {"architectures": ["LlamaForCausalLM"], "n": [1, 2.5e3, -0.1, True, None]},
            "sha": commit,
            "lastModified": "2026-11-30T00:00:00.000Z",
            "siblings": sibs,
            "spaces": [],
        }
        body = json.dumps(doc, indent=1).encode()
        if ctl("info") is not None:
            with open(os.path.join(CTL, "info"), "rb") as f:
                body = f.read()
        if ctl("infoflood") is not None:
            return self.chunked(200, [("Content-Type", "application/json")],
                                int(ctl("infoflood")), body, "infoflood")
        self.reply(200, [("Content-Type", "application/json")], body)

    def resolve(self, org, name, rev, rel):
        repo, commit = resolve(org, name, rev)
        if repo is None:
            return self.error(401, "RepoNotFound", "Repository not found")
        if commit is None:
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
        xcommit = ctl("commit") or commit
        tree = os.path.join(repo, commit)
        p = os.path.normpath(os.path.join(tree, rel))
        if not p.startswith(tree + "/") or not os.path.isfile(p):
            return self.error(404, "EntryNotFound", "Entry not found",
                              [("X-Repo-Commit", xcommit)])
        with open(p, "rb") as f:
            data = f.read()
        if rel.endswith(LFS):
            sha = hashlib.sha256(data).hexdigest()
            loc = "http://127.0.0.1:%d/blob/%s?sig=%s" % (ports["cdn"], sha, "x" * 8)
            return self.reply(302, [("Location", loc), ("X-Repo-Commit", xcommit),
                                    ("ETag", '"%s"' % sha),
                                    ("X-Linked-Etag", '"%s"' % sha),
                                    ("X-Linked-Size", str(len(data)))])
        oid = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        etag = ctl("etag") or '"%s"' % oid
        self.content(200, [("ETag", etag), ("X-Repo-Commit", xcommit),
                           ("Content-Type", "text/plain")], data)


class Cdn(Handler):
    name = "cdn"

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        log("cdn", self)
        if ctl("cdnstatus"):
            return self.error(int(ctl("cdnstatus")), "Cdn", "Request has expired")
        sha = urllib.parse.urlsplit(self.path).path.split("/")[-1]
        p = blobs().get(sha)
        if p is None:
            return self.error(404, "NotFound", "no such blob")
        with open(p, "rb") as f:
            data = f.read()
        if ctl("corrupt") is not None:
            data = data[:-1] + bytes([data[-1] ^ 1])
        start, code, headers = 0, 200, [("Accept-Ranges", "bytes"),
                                         ("Content-Type", "application/octet-stream")]
        rng = self.headers.get("Range")
        if rng and ctl("norange") is None:
            if not rng.startswith("bytes=") or not rng[6:-1].isdigit() or not rng.endswith("-"):
                return self.error(400, "BadRange", "bad range")
            start = int(rng[6:-1])
            if start >= len(data):
                return self.reply(416, [("Content-Range", "bytes */%d" % len(data))])
            code = 206
            headers.append(("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data))))
        body = data[start:]
        cut = ctl("cut")
        if cut is not None and self.command == "GET":
            os.unlink(os.path.join(CTL, "cut"))
            self.send_response(code)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[:int(cut)])
            self.wfile.flush()
            self.close_connection = True
            return
        self.content(code, headers, body)


def main():
    hub = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    cdn = ThreadingHTTPServer(("127.0.0.1", 0), Cdn)
    ports["hub"], ports["cdn"] = hub.server_address[1], cdn.server_address[1]
    for s in (hub, cdn):
        s.daemon_threads = True
        threading.Thread(target=s.serve_forever, daemon=True).start()
    tmp = PORTFILE + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %d\n" % (ports["hub"], ports["cdn"]))
    os.rename(tmp, PORTFILE)
    threading.Event().wait(300)


if __name__ == "__main__":
    main()
