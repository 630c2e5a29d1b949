"""The HTML replay page: every version is a step, pictures are packed tag by tag and come back whole,
text is escaped."""

from __future__ import annotations

from pictures.pack import PicturePacker, unpack
from pictures.page import Frame, data_of, replay_html


def svg(*labels: str) -> str:
    body = "".join(f"<text>{label}</text>" for label in labels)
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">{body}</svg>'


def test_every_version_is_a_step_and_identical_pictures_are_stored_once() -> None:
    frames = [Frame(1, "created", svg("a")), Frame(2, "joined", svg("a")), Frame(3, "game bid", svg("b"))]
    data = data_of(replay_html("a match", frames))
    assert [step["v"] for step in data["steps"]] == [1, 2, 3]
    assert [step["p"] for step in data["steps"]] == [0, 0, 1]
    assert unpack(data["fragments"], data["pictures"]) == [svg("a"), svg("b")]


def test_a_picture_that_changes_a_little_stores_only_the_change() -> None:
    packer = PicturePacker()
    labels = [str(n) for n in range(200)]
    first = svg(*labels)
    changed = svg(*labels[:100], "new", *labels[101:])
    packer.add(first)
    before = sum(map(len, packer.fragments))
    packer.add(changed)
    assert sum(map(len, packer.fragments)) - before == len("<text>new")
    assert len(packer.pictures[1]) <= 4  # keep the head, keep the tail, one new tag, one closing tag
    reordered = svg(*reversed(labels))
    packer.add(reordered)
    assert unpack(packer.fragments, packer.pictures) == [first, changed, reordered]


def test_captions_and_titles_cannot_break_out_of_the_page() -> None:
    page = replay_html("<b>x</b>", [Frame(1, "</script><script>alert(1)</script>", svg("</script>"))])
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert page.count("</script>") == 1 and "<!--" not in page
    assert data_of(page)["steps"][0]["c"] == "</script><script>alert(1)</script>"
