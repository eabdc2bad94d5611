// lecturekit slide decks: light or dark before the first paint. ?theme=dark|light wins, then the
// theme chosen with the T key (remembered), then the system's preference.
(function () {
  var theme = new URLSearchParams(window.location.search).get("theme");
  if (theme !== "dark" && theme !== "light") {
    try { theme = window.localStorage.getItem("lk-slides-theme"); } catch (e) { theme = null; }
  }
  if (theme !== "dark" && theme !== "light") {
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    theme = dark ? "dark" : "light";
  }
  document.documentElement.setAttribute("data-theme", theme);
})();
