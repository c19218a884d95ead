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
        if (!"jni".equals(System.getProperty(LinuxIpc.BINDING_PROPERTY))) {
            return ConditionEvaluationResult.enabled("ffm binding");
        }
        String library = System.getProperty(LinuxIpc.JNI_LIBRARY_PROPERTY, "");
        if (library.isEmpty() || !LinuxIpc.present(Path.of(library))) {
            return ConditionEvaluationResult.disabled("JNI binding: no " + LinuxIpc.JNI_LIBRARY_NAME
                    + " at '" + library + "' (build peers/native with a JDK's JNI headers)");
        }
        return ConditionEvaluationResult.enabled("JNI binding with " + library);
    }
}
