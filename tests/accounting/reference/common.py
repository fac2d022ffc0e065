"""Shared helpers: incremental JSON output (atomic rewrite after every record)."""
import json, os, time

class Recorder:
    def __init__(self, path, meta=None):
        self.path = path
        self.data = {"meta": meta or {}, "records": []}
        if os.path.exists(path):
            try:
                with open(path) as f:
                    old = json.load(f)
                self.data["records"] = old.get("records", [])
            except Exception:
                pass
        self.flush()

    def keys(self):
        return {json.dumps([r.get("task"), r.get("setting"), r.get("direction"), r.get("quantity"),
                            r.get("at")], sort_keys=True) for r in self.data["records"]}

    def has(self, task, setting, direction, quantity, at):
        k = json.dumps([task, setting, direction, quantity, at], sort_keys=True)
        return k in self.keys()

    def add(self, rec, flush=True):
        rec.setdefault("time", time.strftime("%Y-%m-%dT%H:%M:%S"))
        self.data["records"].append(rec)
        if flush:
            self.flush()

    def flush(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1)
        os.replace(tmp, self.path)
