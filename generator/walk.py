"""Every file under a folder, found without recursion.

Python 3.11's `os.walk` and `Path.rglob` recurse once a level, so a folder 1,000 levels deep
ends them with a RecursionError (issue 39). This walk keeps its own stack: any depth a file
system allows is walked, a folder that cannot be listed is passed over as `os.walk` passes it,
and links to folders are not followed (a link is a file here; callers look at what it points to).
"""

from __future__ import annotations

import os
from collections.abc import Iterator


def walk_files(root: str, skip_hidden: bool = False) -> Iterator[str]:
    """The paths of the files (and of anything that is not a folder) under `root`."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                found = list(listing)
        except OSError:
            continue
        for entry in found:
            if skip_hidden and entry.name.startswith("."):
                continue
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            if is_folder:
                stack.append(entry.path)
            else:
                yield entry.path
