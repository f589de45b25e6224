package grants.analysis;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.pattern.PatternTokenizer;
import org.elasticsearch.plugin.Inject;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenizerFactory;
import org.elasticsearch.plugin.settings.AnalysisSettings;
import org.elasticsearch.plugin.settings.IntSetting;
import org.elasticsearch.plugin.settings.StringSetting;
@NamedComponent("pattern")
public class Pattern implements TokenizerFactory {
  @AnalysisSettings
  public interface Settings {
    @StringSetting(path = "pattern", defaultValue = "\\W+") String pattern();
    @IntSetting(path = "group", defaultValue = -1) int group();
  }
  private final java.util.regex.Pattern pattern; private final int group;
  @Inject
  public Pattern(Settings s) { pattern = java.util.regex.Pattern.compile(s.pattern()); group = s.group(); }
  public Tokenizer create() { return new PatternTokenizer(pattern, group); }
}
