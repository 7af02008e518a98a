"""Bloat for the news/events page: a huge inline SVG illustration and a big hydration-state script."""
import json
import random

EVENTS = [
    ("discover-ads-oct", "Discover ADS virtual information session", "2026-10-08T17:30", "Online"),
    ("discover-ads-nov", "Discover ADS virtual information session", "2026-11-05T17:30", "Online"),
    ("discover-ads-dec", "Discover ADS virtual information session", "2026-12-03T17:30", "Online"),
    ("autumn-careers-fair", "Autumn Data Careers Fair", "2026-10-21T11:00", "MDC atrium"),
    ("autumn-showcase", "Autumn Capstone Showcase", "2026-12-10T13:00", "MDC atrium"),
    ("winter-convocation", "Winter Convocation", "2026-12-12T14:00", "MDC 110"),
    ("winter-fair", "Winter Tech and Analytics Fair", "2027-02-10T12:00", "Virtual (Handshake)"),
    ("harborhack-2027", "HarborHack 2027", "2027-02-27T09:00", "Marlowe Data Science Center"),
    ("spring-showcase", "Spring Capstone Showcase", "2027-06-10T13:00", "MDC atrium"),
    ("commencement-2027", "Commencement", "2027-06-12T10:00", "Lakeside Pavilion"),
]


def _svg(rng, n_paths=520):
    parts = ['<figure class="events-hero-art" aria-hidden="true"><svg xmlns="http://www.w3.org/2000/svg" '
             'viewBox="0 0 1600 520" width="1600" height="520" preserveAspectRatio="xMidYMid slice" focusable="false">',
             '<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#0b3d5c"/>'
             '<stop offset="1" stop-color="#7fc4e8"/></linearGradient><filter id="blur"><feGaussianBlur stdDeviation="2"/></filter></defs>',
             '<rect width="1600" height="520" fill="url(#sky)"/>']
    palette = ["#0b3d5c", "#12577f", "#7fc4e8", "#f4b942", "#e86f5a", "#1e8a8a", "#efe3c8", "#ffffff"]
    for _i in range(n_paths):
        x, y = rng.uniform(0, 1600), rng.uniform(0, 520)
        pts = " ".join(f"{'M' if k == 0 else 'C'}{x + rng.uniform(-60, 60):.2f},{y + rng.uniform(-40, 40):.2f} "
                       f"{x + rng.uniform(-60, 60):.2f},{y + rng.uniform(-40, 40):.2f} {x + rng.uniform(-60, 60):.2f},{y + rng.uniform(-40, 40):.2f}"
                       for k in range(3))
        parts.append(f'<path d="{pts}Z" fill="{rng.choice(palette)}" fill-opacity="{rng.uniform(.05, .6):.2f}" '
                     f'transform="rotate({rng.uniform(-20, 20):.1f} {x:.1f} {y:.1f})"/>')
    parts.append("</svg></figure>")
    return "\n".join(parts)


def inject(main_html):
    rng = random.Random(2026)
    art = _svg(rng)
    marker = "</h1>"
    i = main_html.find(marker)
    return main_html[: i + len(marker)] + "\n" + art + main_html[i + len(marker):]


def state_script():
    rng = random.Random(11)
    events = []
    for slug, name, start, loc in EVENTS:
        events.append({"id": slug, "type": "event", "title": name, "start": start, "location": loc,
                       "tz": "local", "image": {"src": f"/media/events/{slug}-1600x900.jpg",
                       "srcset": [f"/media/events/{slug}-{w}.jpg {w}w" for w in (320, 480, 640, 960, 1280, 1600, 1920)],
                       "focal": [round(rng.random(), 3), round(rng.random(), 3)], "blurhash": "".join(
                           rng.choice("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")
                           for _ in range(64))},
                       "tags": rng.sample(["admissions", "careers", "capstone", "students", "alumni", "community",
                                           "graduation", "hackathon", "online"], 3),
                       "tracking": {"impressionId": f"{rng.getrandbits(128):032x}", "slot": rng.randint(1, 12)},
                       "a11y": {"altPending": True}, "cms": {"nodeId": rng.randint(10000, 99999), "rev": rng.randint(1, 40),
                                                             "author": "scds-web", "workflow": "published"}})
    i18n = {f"events.ui.{k}": v for k, v in [
        ("filter.all", "All events"), ("filter.admissions", "Admissions"), ("filter.careers", "Careers"),
        ("filter.students", "Current students"), ("filter.community", "Community"), ("calendar.add", "Add to calendar"),
        ("calendar.ics", "Download .ics"), ("share", "Share"), ("more", "Load more"), ("empty", "No events match your filters."),
        ("month.prev", "Previous month"), ("month.next", "Next month"), ("view.list", "List view"), ("view.grid", "Grid view")]}
    carousel = [{"slide": n, "duration": 7000, "transition": "fade", "kenBurns": {"from": [rng.random(), rng.random(), 1.0],
                 "to": [rng.random(), rng.random(), 1.12]}, "layers": [{"shape": "blob", "seed": rng.getrandbits(32),
                 "points": [[round(rng.uniform(0, 1), 4), round(rng.uniform(0, 1), 4)] for _ in range(24)]} for _ in range(4)]}
                for n in range(14)]
    state = {"route": "/news-events", "locale": "en-US", "events": events, "i18n": i18n, "carousel": carousel,
             "feature_flags": {f"flag_{k}": bool(rng.getrandbits(1)) for k in range(60)},
             "buildId": f"{rng.getrandbits(160):040x}"}
    return '<script id="__INITIAL_STATE__" type="application/json">' + json.dumps(state, separators=(",", ":")) + "</script>\n" \
        '<script>window.__LU_EVENTS__=JSON.parse(document.getElementById("__INITIAL_STATE__").textContent);' \
        '(function(s){var r=document.querySelector(".events-hero-art");if(!r)return;var i=0;setInterval(function(){i=(i+1)%s.carousel.length;' \
        'r.setAttribute("data-slide",i)},s.carousel[0].duration)})(window.__LU_EVENTS__);</script>'
