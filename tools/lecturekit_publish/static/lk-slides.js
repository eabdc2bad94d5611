// lecturekit slide decks: start reveal.js (speaker notes, MathJax from the deck's own folder),
// T toggles light / dark, long texts shrink to fit, and window.lkReady turns true once the math
// is typeset, every figure has loaded and the slides fit (the PDF printer and the tests wait).
(function () {
  var script = document.currentScript;
  var mathjax = script.getAttribute("data-mathjax");
  window.lkReady = false;
  var mathDone = new Promise(function (resolve) {
    window.lkMathDone = resolve;
  });

  function toggleTheme() {
    var root = document.documentElement;
    var next = root.getAttribute("data-theme") === "dark" ? "light" : "dark";
    root.setAttribute("data-theme", next);
    try { window.localStorage.setItem("lk-slides-theme", next); } catch (e) { /* private mode */ }
  }

  function tooWide(slide) {
    return Array.prototype.some.call(slide.querySelectorAll("pre code"), function (code) {
      return code.scrollWidth > code.clientWidth + 1;
    });
  }

  // A long text is shown smaller: each slide's body shrinks in 4 % steps, down to 70 % (21 px:
  // still readable when projected), until the slide fits its 720 px; a short one keeps its size.
  // Code and printouts keep their 21 px (the builder sizes them to fit).
  function fitSlides() {
    var height = Reveal.getConfig().height;
    document.querySelectorAll(".reveal .slides > section").forEach(function (slide) {
      var body = slide.querySelector(".lk-body");
      if (!body) return;
      var display = slide.style.display;
      slide.style.display = "block";
      var size = 1;
      body.style.fontSize = "";
      while ((slide.scrollHeight > height || tooWide(slide)) && size > 0.73) {
        size -= 0.04;
        body.style.fontSize = size.toFixed(2) + "em";
      }
      slide.style.display = display;
    });
    Reveal.layout();
  }

  function imagesLoaded() {
    var images = Array.prototype.slice.call(document.images);
    return Promise.all(images.map(function (img) {
      if (img.complete) return Promise.resolve();
      return new Promise(function (resolve) {
        img.addEventListener("load", resolve);
        img.addEventListener("error", resolve);
      });
    }));
  }

  Reveal.initialize({
    width: 1280,
    height: 720,
    margin: 0.04,
    center: false,
    hash: true,
    slideNumber: "c/t",
    transition: "fade",
    transitionSpeed: "fast",
    pdfSeparateFragments: false,
    pdfMaxPagesPerSlide: 1,
    plugins: [RevealNotes, RevealMath.MathJax3],
    mathjax3: {
      mathjax: mathjax,
      tex: { inlineMath: [["$", "$"], ["\\(", "\\)"]] },
      // Typeset only once the page's fonts have loaded: MathJax sizes the math to the ex-height
      // of the text around it, so typesetting beside a fallback font drew it at another size
      // (and a deck printed twice differed).
      startup: {
        typeset: false,
        ready: function () {
          MathJax.startup.defaultReady();
          MathJax.startup.promise.then(function () {
            return document.fonts.ready;
          }).then(function () {
            return MathJax.typesetPromise();
          }).then(function () {
            Reveal.layout();
            window.lkMathDone();
          });
        },
      },
    },
  }).then(function () {
    Reveal.addKeyBinding({ keyCode: 84, key: "T", description: "Light / dark theme" }, toggleTheme);
    return Promise.all([mathDone, imagesLoaded()]);
  }).then(function () {
    return document.fonts.ready;  // the math's own fonts, requested while typesetting
  }).then(function () {
    fitSlides();
    window.lkReady = true;
  });
})();
