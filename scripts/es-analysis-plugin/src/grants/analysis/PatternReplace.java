package grants.analysis;
import java.io.Reader;
import org.apache.lucene.analysis.pattern.PatternReplaceCharFilter;
import org.elasticsearch.plugin.Inject;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.CharFilterFactory;
import org.elasticsearch.plugin.settings.AnalysisSettings;
import org.elasticsearch.plugin.settings.StringSetting;
@NamedComponent("pattern_replace")
public class PatternReplace implements CharFilterFactory {
  @AnalysisSettings
  public interface Settings {
    @StringSetting(path = "pattern", defaultValue = "") String pattern();
    @StringSetting(path = "replacement", defaultValue = "") String replacement();
  }
  private final java.util.regex.Pattern pattern; private final String replacement;
  @Inject
  public PatternReplace(Settings s) { pattern = java.util.regex.Pattern.compile(s.pattern()); replacement = s.replacement(); }
  public Reader create(Reader in) { return new PatternReplaceCharFilter(pattern, replacement, in); }
  public Reader normalize(Reader in) { return create(in); }
}
