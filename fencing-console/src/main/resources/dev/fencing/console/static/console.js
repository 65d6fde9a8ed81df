// fencing console: refreshes the queue counts and charts in place, every 3 seconds.
// Served by the console itself (Content-Security-Policy: script-src 'self'); the pages work without it.
(function () {
  "use strict";
  var table = document.getElementById("queues");
  if (!table) {
    return;
  }
  var url = table.getAttribute("data-live");
  var fields = ["pending", "running", "failed", "oldest", "waiting", "completedHour", "failedHour"];

  function rowOf(name) {
    var rows = table.querySelectorAll("tr[data-queue]");
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].getAttribute("data-queue") === name) {
        return rows[i];
      }
    }
    return null;
  }

  function update(data) {
    var seen = 0;
    data.queues.forEach(function (q) {
      var row = rowOf(q.name);
      if (!row) {
        // a queue that was not there when the page was drawn: draw the page again
        window.location.reload();
        return;
      }
      seen++;
      fields.forEach(function (k) {
        var cell = row.querySelector("[data-k='" + k + "']");
        if (!cell) {
          return;
        }
        var value = String(q[k]);
        var link = cell.querySelector("a");
        var target = link || cell;
        if (target.textContent !== value) {
          target.textContent = value;
        }
      });
      var bars = row.querySelectorAll("g[data-bar]");
      (q.bars || []).forEach(function (b, i) {
        if (i >= bars.length) {
          return;
        }
        var rects = bars[i].querySelectorAll("rect");
        rects[0].setAttribute("y", b[0]);
        rects[0].setAttribute("height", b[1]);
        rects[1].setAttribute("y", b[2]);
        rects[1].setAttribute("height", b[3]);
        bars[i].querySelector("title").textContent = b[4];
      });
    });
    table.setAttribute("data-refreshed", String(Date.now()));
  }

  function refresh() {
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) { update(data); } })
      .catch(function () { /* the next refresh tries again */ });
  }

  window.setInterval(refresh, 3000);
})();
