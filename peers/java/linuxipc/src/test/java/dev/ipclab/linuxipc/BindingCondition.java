package dev.ipclab.linuxipc;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Registered for every test (META-INF/services): the library's tests run once per binding
 * (pom.xml's surefire executions). The JNI run needs libipclab_linuxipc_jni.so, which only a C++
 * build with a JDK's JNI headers makes; without it every test of that run is skipped, saying why.
 */
public final class BindingCondition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String binding = System.getProperty(LinuxIpc.BINDING_PROPERTY, "ffm");
        if (binding.equals("ffm")) {
            return ConditionEvaluationResult.enabled("ffm binding");
        }
        String library = System.getProperty(LinuxIpc.JNI_LIBRARY_PROPERTY, "");
        if (library.isEmpty() || !LinuxIpc.present(Path.of(library))) {
            return ConditionEvaluationResult.disabled(binding + " binding: no "
                    + LinuxIpc.JNI_LIBRARY_NAME + " at '" + library
                    + "' (build peers/native with a JDK's JNI headers)");
        }
        return ConditionEvaluationResult.enabled(binding + " binding with " + library);
    }
}
