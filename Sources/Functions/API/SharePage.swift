/// The share page's files, served by the API itself: no CDN, no web fonts, no map tiles. The map is an SVG the
/// script draws from the stream's coordinates, scaled to the bounds of the route, the pickup, the dropoff and the
/// driver.
enum SharePage {
    /// The page of a token (already checked to be well formed: base64url characters only, safe in an attribute).
    static func html(token: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Live ride</title>
        <link rel="stylesheet" href="/share/assets/share.css">
        </head>
        <body data-events="/share/\(token)/events">
        <main>
          <header>
            <h1 id="status" data-status="">Connecting…</h1>
            <p id="eta"></p>
          </header>
          <section id="driver" hidden>
            <p><span id="driver-name"></span> · <span id="car"></span></p>
            <p class="plate" id="plate"></p>
          </section>
          <svg id="map" viewBox="0 0 1000 1000" preserveAspectRatio="xMidYMid meet" role="img" aria-label="Map of the ride">
            <rect class="ground" x="0" y="0" width="1000" height="1000"></rect>
            <g id="routes"></g>
            <circle id="pickup" class="place pickup" r="14" cx="-100" cy="-100"></circle>
            <circle id="dropoff" class="place dropoff" r="14" cx="-100" cy="-100"></circle>
            <circle id="car-dot" class="car" r="18" cx="-100" cy="-100"></circle>
          </svg>
          <ul class="legend">
            <li><span class="key pickup"></span><span id="pickup-address">Pickup</span></li>
            <li><span class="key dropoff"></span><span id="dropoff-address">Dropoff</span></li>
          </ul>
          <section id="summary" hidden>
            <h2>Ride summary</h2>
            <p><span id="summary-distance"></span> · <span id="summary-duration"></span> · <span id="summary-fare"></span></p>
          </section>
          <p id="connection" class="connection"></p>
        </main>
        <script src="/share/assets/share.js"></script>
        </body>
        </html>

        """
    }

    /// An unknown, revoked or expired link.
    static let notFound = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Link not found</title>
        <link rel="stylesheet" href="/share/assets/share.css">
        </head>
        <body>
        <main>
          <h1 id="not-found">This ride link is not available</h1>
          <p>It was revoked, or the ride ended a while ago.</p>
        </main>
        </body>
        </html>

        """

    static let style = """
        * { box-sizing: border-box; }
        body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7;
               color: #1d2330; }
        main { max-width: 480px; margin: 0 auto; padding: 16px; }
        h1 { font-size: 1.4rem; margin: 0 0 4px; }
        h2 { font-size: 1.1rem; margin: 0 0 4px; }
        p { margin: 4px 0; }
        #eta { color: #4a5468; }
        #driver { background: #fff; border-radius: 12px; padding: 12px; margin: 12px 0; }
        .plate { display: inline-block; font-family: ui-monospace, monospace; font-weight: bold; border: 2px solid #1d2330;
                 border-radius: 4px; padding: 2px 8px; }
        #map { width: 100%; height: auto; display: block; border-radius: 12px; }
        .ground { fill: #e3e8ee; }
        .route { fill: none; stroke: #3867d6; stroke-width: 8; stroke-linecap: round; stroke-linejoin: round; }
        .route.done { stroke: #9aa5b8; }
        .place { stroke: #fff; stroke-width: 4; }
        .pickup { fill: #20bf6b; background: #20bf6b; }
        .dropoff { fill: #eb3b5a; background: #eb3b5a; }
        .car { fill: #1d2330; stroke: #fff; stroke-width: 5; }
        .legend { list-style: none; padding: 0; margin: 8px 0; }
        .legend li { display: flex; align-items: center; gap: 8px; margin: 4px 0; }
        .key { width: 12px; height: 12px; border-radius: 6px; display: inline-block; }
        #summary { background: #fff; border-radius: 12px; padding: 12px; margin: 12px 0; }
        .connection { color: #8a93a6; font-size: 0.8rem; }
        [hidden] { display: none !important; }

        """

    static let script = #"""
        (function () {
          'use strict';
          var labels = {
            NEW: 'Looking for a driver', ACCEPTED: 'Driver assigned', PICKING_UP: 'Driver on the way',
            REACHED_PICKUP: 'Driver has arrived', STARTED_RIDE: 'Ride started', DROPPING_OFF: 'On the way',
            REACHED_DROPOFF: 'Arrived', COMPLETED: 'Ride complete', CANCELLED: 'Ride cancelled'
          };
          var state = { view: null, position: null };
          var svgNS = 'http://www.w3.org/2000/svg';
          function $(id) { return document.getElementById(id); }
          function text(id, value) { $(id).textContent = value; }
          function time(iso) {
            var d = new Date(iso);
            return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
          }
          function points() {
            var all = [];
            var v = state.view;
            if (!v) { return all; }
            v.routes.forEach(function (route) { route.forEach(function (p) { all.push(p); }); });
            all.push([v.pickup.lng, v.pickup.lat]);
            all.push([v.dropoff.lng, v.dropoff.lat]);
            if (state.position) { all.push([state.position.lng, state.position.lat]); }
            return all;
          }
          // Equirectangular projection scaled to the bounds of everything drawn, with a margin.
          function projection() {
            var all = points();
            var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
            all.forEach(function (p) {
              minX = Math.min(minX, p[0]); maxX = Math.max(maxX, p[0]);
              minY = Math.min(minY, p[1]); maxY = Math.max(maxY, p[1]);
            });
            var k = Math.cos(((minY + maxY) / 2) * Math.PI / 180);
            var w = Math.max((maxX - minX) * k, 1e-6), h = Math.max(maxY - minY, 1e-6);
            var scale = 860 / Math.max(w, h);
            var ox = 500 - (w * scale) / 2, oy = 500 - (h * scale) / 2;
            return function (p) {
              return [ox + (p[0] - minX) * k * scale, oy + (maxY - p[1]) * scale];
            };
          }
          function place(id, p, project) {
            var xy = project(p);
            $(id).setAttribute('cx', xy[0].toFixed(1));
            $(id).setAttribute('cy', xy[1].toFixed(1));
          }
          function drawMap() {
            var v = state.view;
            if (!v) { return; }
            var project = projection();
            var group = $('routes');
            while (group.firstChild) { group.removeChild(group.firstChild); }
            v.routes.forEach(function (route, index) {
              var line = document.createElementNS(svgNS, 'polyline');
              line.setAttribute('points', route.map(function (p) {
                var xy = project(p); return xy[0].toFixed(1) + ',' + xy[1].toFixed(1);
              }).join(' '));
              line.setAttribute('class', index < v.routes.length - 1 ? 'route done' : 'route');
              group.appendChild(line);
            });
            place('pickup', [v.pickup.lng, v.pickup.lat], project);
            place('dropoff', [v.dropoff.lng, v.dropoff.lat], project);
            if (state.position && v.status !== 'COMPLETED' && v.status !== 'CANCELLED') {
              place('car-dot', [state.position.lng, state.position.lat], project);
            } else {
              $('car-dot').setAttribute('cx', '-100');
            }
          }
          function render() {
            var v = state.view;
            if (!v) { return; }
            $('status').setAttribute('data-status', v.status);
            text('status', labels[v.status] || v.status);
            var final = v.status === 'COMPLETED' || v.status === 'CANCELLED';
            text('eta', v.eta && !final ? 'Arriving around ' + time(v.eta) : '');
            if (v.driver) {
              $('driver').hidden = false;
              text('driver-name', v.driver.first_name);
              text('car', v.driver.car.model);
              text('plate', v.driver.car.plate);
            } else {
              $('driver').hidden = true;
            }
            text('pickup-address', v.pickup.address || 'Pickup');
            text('dropoff-address', v.dropoff.address || 'Dropoff');
            if (v.summary) {
              $('summary').hidden = false;
              text('summary-distance', (v.summary.total_distance / 1000).toFixed(1) + ' km');
              text('summary-duration', Math.round(v.summary.total_duration / 60) + ' min');
              text('summary-fare', (v.summary.fare.amount / 100).toFixed(2) + ' ' + v.summary.fare.currency);
            }
            drawMap();
          }
          var source = new EventSource(document.body.getAttribute('data-events'));
          source.addEventListener('share.order', function (e) { state.view = JSON.parse(e.data); render(); });
          source.addEventListener('driver.position', function (e) { state.position = JSON.parse(e.data); drawMap(); });
          source.addEventListener('stream.reset', function () { text('connection', 'Reconnected'); });
          source.addEventListener('stream.closed', function (e) {
            // Timeouts and restarts reconnect by themselves; a revoked link does not come back.
            if (JSON.parse(e.data).reason === 'revoked') {
              source.close();
              text('connection', 'This link is no longer available');
            }
          });
          source.addEventListener('open', function () { text('connection', 'Live'); });
          source.addEventListener('error', function () {
            text('connection', source.readyState === EventSource.CLOSED ? 'This link is no longer available' : 'Reconnecting…');
          });
        })();

        """#
}
