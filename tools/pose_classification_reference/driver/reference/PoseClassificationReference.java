package reference;

import android.os.SystemClock;
import com.google.mlkit.vision.common.PointF3D;
import com.google.mlkit.vision.demo.java.posedetector.classification.ClassificationResult;
import com.google.mlkit.vision.demo.java.posedetector.classification.EMASmoothing;
import com.google.mlkit.vision.demo.java.posedetector.classification.PoseClassifier;
import com.google.mlkit.vision.demo.java.posedetector.classification.PoseClassifierProcessor;
import com.google.mlkit.vision.demo.java.posedetector.classification.PoseEmbedding;
import com.google.mlkit.vision.demo.java.posedetector.classification.PoseSample;
import com.google.mlkit.vision.demo.java.posedetector.classification.RepetitionCounter;
import com.google.mlkit.vision.pose.Pose;
import com.google.mlkit.vision.pose.PoseLandmark;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Prints the reference cases of TasksVisionPoseClassification from ML Kit's unmodified Java classes.
 * Floats are printed as their bits in hex; fields are separated by tabs; a classification result is
 * CLASS=BITS;... in the HashMap's iteration order ("-" when empty); landmarks are 99 BITS joined by
 * commas ("-" for a frame without a pose).
 *
 * <p>Arguments: the samples CSV, the assets folder holding it as pose/fitness_pose_samples.csv, the
 * output folder, and any number of NAME=FILE, files of real frames printed as NAME.txt: in FILE,
 * "TIMESTAMP X,Y,Z,..." a line (99 decimals, as the JSON gives them), or "TIMESTAMP -" for a frame without
 * a pose.
 */
public final class PoseClassificationReference {
  static String hex(float f) {
    return String.format("%08x", Float.floatToRawIntBits(f));
  }

  static float unhex(String s) {
    return Float.intBitsToFloat((int) Long.parseLong(s, 16));
  }

  static String points(List<PointF3D> list) {
    if (list.isEmpty()) {
      return "-";
    }
    StringBuilder b = new StringBuilder();
    for (PointF3D p : list) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(hex(p.getX())).append(',').append(hex(p.getY())).append(',').append(hex(p.getZ()));
    }
    return b.toString();
  }

  static List<PointF3D> parsePoints(String text) {
    List<PointF3D> list = new ArrayList<>();
    if (text.equals("-")) {
      return list;
    }
    String[] t = text.split(",");
    for (int i = 0; i < t.length; i += 3) {
      list.add(PointF3D.from(unhex(t[i]), unhex(t[i + 1]), unhex(t[i + 2])));
    }
    return list;
  }

  static String result(ClassificationResult r) {
    StringBuilder b = new StringBuilder();
    for (String c : r.getAllClasses()) {
      if (b.length() > 0) {
        b.append(';');
      }
      b.append(c).append('=').append(hex(r.getClassConfidence(c)));
    }
    return b.length() == 0 ? "-" : b.toString();
  }

  static String maxClass(ClassificationResult r) {
    return r.getAllClasses().isEmpty() ? "-" : r.getMaxConfidenceClass();
  }

  /** A CSV row's landmarks, parsed as PoseSample.getPoseSample parses them. */
  static List<PointF3D> rowLandmarks(String line) {
    String[] t = line.split(",", -1);
    List<PointF3D> list = new ArrayList<>();
    for (int i = 2; i < t.length; i += 3) {
      list.add(PointF3D.from(
          Float.parseFloat(t[i]), Float.parseFloat(t[i + 1]), Float.parseFloat(t[i + 2])));
    }
    return list;
  }

  static Pose pose(List<PointF3D> landmarks) {
    List<PoseLandmark> list = new ArrayList<>();
    for (int i = 0; i < landmarks.size(); i++) {
      list.add(new PoseLandmark(i, landmarks.get(i)));
    }
    return new Pose(list);
  }

  static List<String> readLines(String path) throws IOException {
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(new FileInputStream(path), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.add(line);
      }
    }
    return lines;
  }

  static final int[] SWAP = {0, 4, 5, 6, 1, 2, 3, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17, 20, 19, 22,
      21, 24, 23, 26, 25, 28, 27, 30, 29, 32, 31};

  /** A perturbed copy of a pose: kind 0 scaled, 1 shifted, 2 noised, 3 mirrored in x only,
   * 4 mirrored with left and right swapped, 5 all of scale, shift and noise. */
  static List<PointF3D> perturb(List<PointF3D> p, int kind, Random random) {
    List<PointF3D> out = new ArrayList<>();
    float scale = 0.5f + random.nextFloat() * 1.5f;
    float dx = (random.nextFloat() - 0.5f) * 800;
    float dy = (random.nextFloat() - 0.5f) * 800;
    float dz = (random.nextFloat() - 0.5f) * 400;
    for (int i = 0; i < p.size(); i++) {
      PointF3D q = kind == 4 ? p.get(SWAP[i]) : p.get(i);
      float x = q.getX(), y = q.getY(), z = q.getZ();
      switch (kind) {
        case 0: x *= scale; y *= scale; z *= scale; break;
        case 1: x += dx; y += dy; z += dz; break;
        case 2:
          x += (float) random.nextGaussian() * 8;
          y += (float) random.nextGaussian() * 8;
          z += (float) random.nextGaussian() * 8;
          break;
        case 3: case 4: x = 1000 - x; break;
        default:
          x = x * scale + dx + (float) random.nextGaussian() * 15;
          y = y * scale + dy + (float) random.nextGaussian() * 15;
          z = z * scale + dz + (float) random.nextGaussian() * 15;
      }
      out.add(PointF3D.from(x, y, z));
    }
    return out;
  }

  static int repsOf(PoseClassifierProcessor processor, String className) throws Exception {
    Field f = PoseClassifierProcessor.class.getDeclaredField("repCounters");
    f.setAccessible(true);
    @SuppressWarnings("unchecked")
    List<RepetitionCounter> counters = (List<RepetitionCounter>) f.get(processor);
    for (RepetitionCounter c : counters) {
      if (c.getClassName().equals(className)) {
        return c.getNumRepeats();
      }
    }
    return -1;
  }

  /**
   * Runs frames (timestamp, landmarks) through a stream-mode and a single-image processor, and a
   * PoseClassifier with an EMASmoothing of its own for the smoothed values the processor keeps inside.
   */
  static void stream(PrintStream out, String assets, List<Long> times, List<List<PointF3D>> frames,
      List<PoseSample> samples) throws Exception {
    android.content.Context context = new android.content.Context(assets);
    PoseClassifierProcessor streamProcessor = new PoseClassifierProcessor(context, true);
    PoseClassifierProcessor imageProcessor = new PoseClassifierProcessor(context, false);
    PoseClassifier classifier = new PoseClassifier(samples);
    EMASmoothing smoothing = new EMASmoothing();
    for (int i = 0; i < frames.size(); i++) {
      SystemClock.now = times.get(i);
      List<PointF3D> landmarks = frames.get(i);
      Pose pose = pose(landmarks);
      ClassificationResult raw = classifier.classify(pose);
      ClassificationResult smoothed = smoothing.getSmoothedResult(raw);
      List<String> lines = streamProcessor.getPoseResult(pose);
      List<String> imageLines = imageProcessor.getPoseResult(pose);
      out.println(times.get(i) + "\t" + points(landmarks) + "\t" + result(raw) + "\t" + result(smoothed)
          + "\t" + (landmarks.isEmpty() ? "-" : smoothed.getMaxConfidenceClass())
          + "\t" + repsOf(streamProcessor, "pushups_down") + "," + repsOf(streamProcessor, "squats_down")
          + "\t" + String.join("|", lines) + "\t" + String.join("|", imageLines));
    }
  }

  public static void main(String[] args) throws Exception {
    String csv = args[0], assets = args[1], outDir = args[2];
    List<String> rows = readLines(csv);
    List<PoseSample> samples = new ArrayList<>();
    List<List<PointF3D>> landmarks = new ArrayList<>();
    for (String row : rows) {
      PoseSample s = PoseSample.getPoseSample(row, ",");
      if (s != null) {
        samples.add(s);
        landmarks.add(rowLandmarks(row));
      }
    }

    try (PrintStream out = new PrintStream(outDir + "/embeddings.txt", "UTF-8")) {
      for (PoseSample s : samples) {
        out.println(s.getName() + "\t" + s.getClassName() + "\t" + points(s.getEmbedding()));
      }
    }

    PoseClassifier classifier = new PoseClassifier(samples);
    try (PrintStream out = new PrintStream(outDir + "/classify_samples.txt", "UTF-8")) {
      for (int i = 0; i < samples.size(); i++) {
        ClassificationResult r = classifier.classify(landmarks.get(i));
        out.println(i + "\t" + result(r) + "\t" + maxClass(r));
      }
    }

    Random random = new Random(20261205);
    try (PrintStream out = new PrintStream(outDir + "/perturbed.txt", "UTF-8")) {
      for (int n = 0; n < 240; n++) {
        int i = random.nextInt(samples.size());
        List<PointF3D> q = perturb(landmarks.get(i), n % 6, random);
        ClassificationResult r = classifier.classify(q);
        out.println(points(q) + "\t" + result(r) + "\t" + maxClass(r));
      }
    }

    // Sample sets with ties: exact duplicates under other labels, labels whose String.hashCode()
    // collide ("Aa" and "BB", and their concatenations), and enough classes to resize the HashMap.
    try (PrintStream out = new PrintStream(outDir + "/ties.txt", "UTF-8")) {
      String[] colliding = {"AaAa", "AaBB", "BBAa", "BBBB", "AaAaAa", "AaAaBB", "AaBBAa", "AaBBBB",
          "BBAaAa", "BBAaBB", "BBBBAa", "BBBBBB"};
      int[][] kinds = {{30, 10}, {60, 24}, {5, 5}, {100, 40}, {1, 1}};
      for (int set = 0; set < 6; set++) {
        List<PoseSample> tied = new ArrayList<>();
        List<String> spec = new ArrayList<>();
        for (int i = 0; i < samples.size(); i++) {
          if (set < 2 && i % 3 != 0) {
            continue;
          }
          int copies = set == 0 ? 3 : (set == 1 ? 2 : 1);
          for (int c = 0; c < copies; c++) {
            String label;
            switch (set) {
              case 0: label = c == 0 ? samples.get(i).getClassName() : (c == 1 ? "Aa" : "BB"); break;
              case 1: label = colliding[(i + c) % colliding.length]; break;
              case 2: label = "c" + (i % 37); break;
              case 3: label = colliding[i % 10]; break;
              case 4: label = i % 2 == 0 ? "x" + (i % 53) : samples.get(i).getClassName(); break;
              default: label = "\u00e9" + (char) ('A' + i % 26) + "\ud83c\udfcb"; break;
            }
            tied.add(new PoseSample(samples.get(i).getName(), label, landmarks.get(i)));
            spec.add(i + ":" + label);
          }
        }
        int[] k = kinds[set % kinds.length];
        PointF3D weights = set == 4 ? PointF3D.from(1, 0.5f, 0) : PointF3D.from(1, 1, 0.2f);
        PoseClassifier c = new PoseClassifier(tied, k[0], k[1], weights);
        out.println("set\t" + k[0] + "\t" + k[1] + "\t" + hex(weights.getX()) + "," + hex(weights.getY()) + ","
            + hex(weights.getZ()) + "\t" + String.join(";", spec));
        for (int q = 0; q < samples.size(); q += 7) {
          List<PointF3D> query = q % 2 == 0 ? landmarks.get(q) : perturb(landmarks.get(q), 5, random);
          ClassificationResult r = c.classify(query);
          out.println(points(query) + "\t" + result(r) + "\t" + maxClass(r));
        }
      }
    }

    // A workout: runs of samples of one class after another, perturbed, 33 ms apart, with frames
    // without a pose and gaps of more than 100 ms.
    List<Long> times = new ArrayList<>();
    List<List<PointF3D>> frames = new ArrayList<>();
    String[] plan = {"squats_up", "squats_down", "squats_up", "squats_down", "squats_up", "pushups_up",
        "pushups_down", "pushups_up", "pushups_down", "pushups_up", "squats_down", "pushups_down",
        "squats_up", "squats_down", "pushups_down", "pushups_up"};
    long t = 1000;
    for (int round = 0; round < 6; round++) {
      for (String cls : plan) {
        int run = 2 + random.nextInt(12);
        List<Integer> ofClass = new ArrayList<>();
        for (int i = 0; i < samples.size(); i++) {
          if (samples.get(i).getClassName().equals(cls)) {
            ofClass.add(i);
          }
        }
        for (int f = 0; f < run; f++) {
          int roll = random.nextInt(20);
          t += roll == 0 ? 101 + random.nextInt(200) : (roll == 1 ? 100 : 33);
          times.add(t);
          if (roll == 2 || roll == 3) {
            frames.add(new ArrayList<>());
          } else {
            int i = ofClass.get(random.nextInt(ofClass.size()));
            frames.add(perturb(landmarks.get(i), random.nextInt(6), random));
          }
        }
      }
    }
    try (PrintStream out = new PrintStream(outDir + "/stream.txt", "UTF-8")) {
      stream(out, assets, times, frames, samples);
    }

    for (int a = 3; a < args.length; a++) {
      String name = args[a].substring(0, args[a].indexOf('='));
      String path = args[a].substring(args[a].indexOf('=') + 1);
      times.clear();
      frames.clear();
      for (String line : readLines(path)) {
        String[] f = line.split(" ");
        times.add(Long.parseLong(f[0]));
        List<PointF3D> points = new ArrayList<>();
        if (!f[1].equals("-")) {
          String[] v = f[1].split(",");
          for (int i = 0; i < v.length; i += 3) {
            points.add(PointF3D.from(
                Float.parseFloat(v[i]), Float.parseFloat(v[i + 1]), Float.parseFloat(v[i + 2])));
          }
        }
        frames.add(points);
      }
      try (PrintStream out = new PrintStream(outDir + "/" + name + ".txt", "UTF-8")) {
        stream(out, assets, times, frames, samples);
      }
    }
  }
}
